// Benchmark: time from Postfix accepting ONE message to GET showing every account's category, over real `npm start`
// and the real loopback mail stack. Prints a table for people and one JSON line for machines.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { GTUBE, MAILSTACK_DIR, mailStack, sendOnce } from '../test/support/mailStack';

const { values } = parseArgs({
  options: {
    checks: { type: 'string', default: '20' },
    interval: { type: 'string', default: '3000' },
  },
});
const checks = Number(values.checks);
const intervalMs = Number(values.interval);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

const main = async () => {
  process.stderr.write(`starting the mail stack in ${MAILSTACK_DIR}\n`);
  mailStack('start');
  const dir = mkdtempSync(join(tmpdir(), 'inbox-placement-bench-'));
  const accounts = JSON.parse(readFileSync(join(MAILSTACK_DIR, 'accounts.json'), 'utf8')) as {
    email: string;
    auth: Record<string, unknown>;
  }[];
  // The OAuth2 test account needs the tests' token server, which the benchmark does not run.
  const fixed = accounts.filter(
    (account) => !account.email.startsWith('user') && !('oauth2' in account.auth),
  );
  writeFileSync(join(dir, 'local.json'), JSON.stringify({ accounts: fixed }));
  const child = spawn('node_modules/.bin/tsx', ['shared/local/main.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      DATA_DIR: join(dir, 'data'),
      LOCAL_CONFIG: join(dir, 'local.json'),
      SCAN_INTERVAL_MS: String(intervalMs),
      LOG_LEVEL: 'warn',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const ready = await new Promise<{ baseUrl: string; key: string }>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      const key = /\(shown once, save it\): (\S+)/.exec(output)?.[1];
      if (url && key) resolve({ baseUrl: url, key });
    });
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${output}`)));
  });
  const headers = { authorization: `Bearer ${ready.key}` };
  const latencies: number[] = [];
  const firstResult: number[] = [];
  try {
    for (let run = 0; run < checks; run++) {
      const started = (await (
        await fetch(`${ready.baseUrl}/api/spam-check/start`, { method: 'POST', headers })
      ).json()) as {
        check_id: string;
        accounts: string[];
      };
      // Mail arrives independently of the scanner's rhythm; without this pause every send would fall just after
      // a sweep (the previous check completed on one), which measures the worst phase, not a typical one.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * intervalMs));
      const acceptedAt = await sendOnce(started.accounts, {
        text: run % 2 === 0 ? `bench ${run}\n${GTUBE}` : `bench ${run}`,
      });
      let first: number | undefined;
      for (;;) {
        const body = (await (
          await fetch(`${ready.baseUrl}/api/spam-check/${started.check_id}`, { headers })
        ).json()) as {
          status: string;
          received: number;
        };
        if (first === undefined && body.received > 0) first = Date.now() - acceptedAt;
        if (body.status !== 'pending') {
          if (body.status !== 'complete') throw new Error(`check ${started.check_id} ended ${body.status}`);
          latencies.push(Date.now() - acceptedAt);
          firstResult.push(first ?? Date.now() - acceptedAt);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    child.kill('SIGTERM');
    mailStack('stop');
    rmSync(dir, { recursive: true, force: true });
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const sortedFirst = [...firstResult].sort((a, b) => a - b);
  const summary = {
    benchmark: 'smtp-accept-to-get-complete',
    checks,
    accountsPerCheck: fixed.length,
    scanIntervalMs: intervalMs,
    medianMs: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    worstMs: sorted.at(-1),
    bestMs: sorted[0],
    firstResultMedianMs: percentile(sortedFirst, 50),
  };
  process.stdout.write(
    [
      `SMTP accept -> GET complete, ${checks} checks x ${fixed.length} accounts, scan interval ${intervalMs} ms`,
      `  median ${summary.medianMs} ms   p95 ${summary.p95Ms} ms   worst ${summary.worstMs} ms   best ${summary.bestMs} ms`,
      `  first account placed: median ${summary.firstResultMedianMs} ms`,
      JSON.stringify(summary),
      '',
    ].join('\n'),
  );
};

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
