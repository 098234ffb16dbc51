// `npm run bench`: every benchmark of BENCHMARKS.md in one run, on this machine's loopback mail stack. Prints progress
// on stderr, writes the figures to bench/results/latest.json, and rewrites the results table in BENCHMARKS.md.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BENCH_BLOCK,
  goalsTable,
  RELIABILITY_SECTIONS,
  runsHeading,
  type StampedSection,
  withBlock,
} from '../scripts/lib/goals';
import { MAILSTACK_DIR, mailStack, stackAccounts } from '../scripts/lib/mailStack';
import { takeRunStamp } from '../scripts/lib/runStamp';
import type { AccountEntry } from '../shared/local/localConfig';

const ROOT = join(import.meta.dirname, '..');

const { values } = parseArgs({
  options: {
    only: { type: 'string', multiple: true },
    checks: { type: 'string', default: '50' },
    'cost-checks': { type: 'string', default: '10' },
    /** Rounds of the audit section's side-by-side detection runs (off, on, on, off each, --checks per condition). */
    'audit-rounds': { type: 'string', default: '3' },
    /** Checks of the waiting section, each running to the 5-minute timeout. */
    'timeout-checks': { type: 'string', default: '1' },
    /** Checks of the waiting section whose last copy lands after the scanner's patience window (about 1.5 min each). */
    'late-checks': { type: 'string', default: '3' },
    /** Checks started at once at each level of the concurrent-cost section ("1,2" for a smoke run). */
    'cost-levels': { type: 'string', default: '1,10,100' },
    interval: { type: 'string', default: '1000' },
    'scale-accounts': { type: 'string', default: '200' },
    'scale-checks': { type: 'string', default: '1000' },
    'old-messages': { type: 'string', default: '10000' },
    'load-seconds': { type: 'string', default: '60' },
    'property-cases': { type: 'string', default: '100000' },
    /** The stack-cost section: idle invocations metered, and seconds its memory sweep runs. */
    'idle-runs': { type: 'string', default: '20' },
    'memory-seconds': { type: 'string', default: '30' },
    kills: { type: 'string', default: '60' },
    /** Stream records of the wake-up section (600: a minute at 600 starts a minute); a few dozen for a smoke run. */
    'wake-up-records': { type: 'string', default: '600' },
    /** Seed mailboxes of the simulation section (a few hundred for a smoke run). */
    'simulation-accounts': { type: 'string', default: '5000' },
    /** Accounts the shard-sizing section holds at once (a few dozen for a smoke run). */
    'sizing-accounts': { type: 'string', default: '100' },
    /** Checks of the webhook section, each polled beside at the spec's interval (a few seconds each). */
    'webhook-checks': { type: 'string', default: '20' },
    /** The wire of the detection, waiting, sweep-cost and first-sweep sections: plain, tls-delay or both (one run). */
    wire: { type: 'string', default: 'both' },
    /** The round trip the TLS wire's delay proxy adds, in milliseconds (a provider's nearest region). */
    rtt: { type: 'string', default: '40' },
    'no-write': { type: 'boolean', default: false },
    /** Rewrites BENCHMARKS.md's table from bench/results/latest.json (after a change of goals.ts), running nothing. */
    table: { type: 'boolean', default: false },
  },
});

// The handler modules wire their production dependencies at load, as on Lambda; the in-process benchmarks build their
// own through createHandler, so these only have to be valid (the same as vitest.config.ts gives the tests).
for (const [name, value] of Object.entries({
  TABLE_NAME: 'unused-by-benchmarks',
  AWS_REGION: 'local',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  LOG_LEVEL: 'error',
}))
  process.env[name] ??= value;

const say = (line: string) => process.stderr.write(`${line}\n`);
if (!['plain', 'tls-delay', 'both'].includes(values.wire))
  throw new Error('--wire is plain, tls-delay or both');
const onPlain = values.wire !== 'tls-delay';
const onTls = values.wire !== 'plain';
const rttMs = Number(values.rtt);

/** Runs `measure` with the accounts over TLS to the stack's IMAPS through the delay proxy, closed after. */
const overTls = async <T>(
  accounts: AccountEntry[],
  measure: (wire: { label: string; rttMs: number; caFile?: string; accounts: AccountEntry[] }) => Promise<T>,
): Promise<{ tlsDelay: T } | Record<string, never>> => {
  if (!onTls) return {};
  const { stackTlsWire } = await import('./wire');
  const wire = await stackTlsWire(accounts, rttMs);
  try {
    return { tlsDelay: await measure({ ...wire, rttMs }) };
  } finally {
    await wire.close();
  }
};
const wanted = (name: string) => !values.only || values.only.includes(name);

const rewriteTable = () => {
  const latest = JSON.parse(readFileSync(join(ROOT, 'bench/results/latest.json'), 'utf8')) as {
    results: Record<string, unknown>;
  };
  writeTable(latest.results);
};

/** BENCHMARKS.md's table and RELIABILITY.md's long variants, both from `results`: re-rendered, never re-measured. */
const writeTable = (results: Record<string, unknown>) => {
  const table = goalsTable(results);
  process.stdout.write(`${table}\n`);
  const doc = join(ROOT, 'BENCHMARKS.md');
  const heading = runsHeading(results);
  const block = ['<!-- results:begin -->', '<!-- results:end -->'] as const;
  writeFileSync(doc, withBlock(readFileSync(doc, 'utf8'), block, `${heading}\n\n${table}`));
  const reliability = join(ROOT, 'RELIABILITY.md');
  writeFileSync(
    reliability,
    withBlock(readFileSync(reliability, 'utf8'), BENCH_BLOCK, goalsTable(results, RELIABILITY_SECTIONS)),
  );
};

const main = async () => {
  if (values.table) return rewriteTable();
  const stamp = takeRunStamp();
  const results: Record<string, unknown> = {};
  const scaleAccounts = Number(values['scale-accounts']);
  const needsStack = [
    'detection',
    'audit',
    'waiting',
    'concurrent-cost',
    'sweep-cost',
    'scale',
    'shards',
    'shard-sizing',
    'kill-restart',
    'webhooks',
    'stack-cost',
  ].some(wanted);
  if (needsStack) {
    say(`starting the mail stack in ${MAILSTACK_DIR} with ${scaleAccounts} extra users`);
    mailStack('start', scaleAccounts);
  }
  try {
    const all = needsStack ? stackAccounts() : [];
    const passwordAccounts = all.filter((account) => 'pass' in account.auth);
    if (wanted('detection')) {
      const { runDetectionBench } = await import('./detection');
      // The five filtering accounts plus plain inboxes: 20 accounts, the size the cost goal names.
      const accounts = passwordAccounts.slice(0, 20);
      const common = { checks: Number(values.checks), intervalMs: Number(values.interval), progress: say };
      results.detection = {
        ...(onPlain
          ? await runDetectionBench({ ...common, accounts, costChecks: Number(values['cost-checks']) })
          : {}),
        // The cost phase is the plain wire's: the service's spend does not depend on the wire's distance.
        ...(await overTls(accounts, (wire) =>
          runDetectionBench({ ...common, accounts: wire.accounts, costChecks: 0, wire }),
        )),
      };
    }
    if (wanted('waiting')) {
      const { runWaitingBench } = await import('./waitingCost');
      // The detection accounts again; the last, a plain inbox, is the one that never receives.
      const accounts = passwordAccounts.slice(0, 20);
      const common = {
        checks: Number(values['timeout-checks']),
        intervalMs: Number(values.interval),
        progress: say,
      };
      results.waiting = {
        ...(onPlain
          ? await runWaitingBench({ ...common, accounts, lateChecks: Number(values['late-checks']) })
          : {}),
        // The late copies wait for the schedule's sweep, whatever the wire: timed on the plain wire only.
        ...(await overTls(accounts, (wire) =>
          runWaitingBench({ ...common, accounts: wire.accounts, lateChecks: 0, wire }),
        )),
      };
    }
    if (wanted('concurrent-cost')) {
      const { runConcurrentCostBench } = await import('./concurrentCost');
      results.concurrentCost = await runConcurrentCostBench({
        accounts: passwordAccounts.slice(0, 20),
        levels: values['cost-levels'].split(',').map(Number),
        intervalMs: Number(values.interval),
        progress: say,
      });
    }
    if (wanted('sweep-cost')) {
      const { runSweepCostBench } = await import('./sweepCost');
      const baseline = passwordAccounts.find((account) => account.email === 'user001@mail.test');
      const full = passwordAccounts.find((account) => account.email === 'user002@mail.test');
      const { stackTlsWire } = await import('./wire');
      const wire = onTls && baseline && full ? await stackTlsWire([baseline, full], rttMs) : undefined;
      try {
        const [tlsBaseline, tlsFull] = wire?.accounts ?? [];
        results.sweepCost = await runSweepCostBench({
          baseline,
          full,
          oldMessages: Number(values['old-messages']),
          progress: say,
          ...(wire && tlsBaseline && tlsFull
            ? { tls: { label: wire.label, rttMs, baseline: tlsBaseline, full: tlsFull, caFile: wire.caFile } }
            : {}),
        });
      } finally {
        await wire?.close();
      }
    }
    if (wanted('scale')) {
      const { runScaleBench } = await import('./scale');
      const { runFirstSweep } = await import('./firstSweep');
      const accounts = passwordAccounts
        .filter((account) => account.email.startsWith('user'))
        .slice(0, scaleAccounts);
      const checks = Number(values['scale-checks']);
      results.scale = {
        ...(onPlain ? await runScaleBench({ accounts, checks, progress: say }) : {}),
        // A loop's first sweep again, over TLS a round trip away (the plain run opened every mailbox once already).
        ...(await overTls(accounts, (wire) =>
          runFirstSweep({ accounts: wire.accounts, checks, wire, progress: say }),
        )),
      };
    }
    if (wanted('shards')) {
      const { runShardBench } = await import('./scale');
      const { plainWire, stackTlsWire } = await import('./wire');
      const users = passwordAccounts.filter((account) => account.email.startsWith('user'));
      const shardCounts = [1, 2, 4].filter((count) => count * 50 <= scaleAccounts);
      // The same accounts over both wires in this run: loopback plain, then TLS a provider's round trip away.
      results.shards = await runShardBench({
        wire: plainWire(users),
        shardSize: 50,
        shardCounts,
        progress: say,
      });
      // Shards of 20 over TLS: four shards' own CPU (about 1 ms an account sweep) must fit this machine's 2 cores
      // beside Dovecot's TLS for the round trips to be what a sweep waits on, as each shard's own CPU on Lambda.
      const tls = await stackTlsWire(users);
      try {
        results.shardsTls = await runShardBench({
          wire: tls,
          shardSize: 20,
          shardCounts: [1, 2, 4],
          progress: say,
        });
        // The same processes and wire with the IMAP client alone: how far its own CPU lets them scale here.
        results.shardsTlsClient = await runShardBench({
          wire: tls,
          shardSize: 20,
          shardCounts: [1, 2, 4],
          clientOnly: true,
          progress: say,
        });
      } finally {
        await tls.close();
      }
    }
    if (wanted('shard-sizing')) {
      const { runShardSizingBench } = await import('./shardSizing');
      const { plainWire, stackTlsWire } = await import('./wire');
      const held = passwordAccounts
        .filter((account) => account.email.startsWith('user'))
        .slice(0, Number(values['sizing-accounts']));
      const tls = await stackTlsWire(held);
      try {
        results.shardSizing = await runShardSizingBench({ wires: [plainWire(held), tls], progress: say });
      } finally {
        await tls.close();
      }
    }
    if (wanted('stack-cost')) {
      const { runStackCostBench } = await import('./stackCost');
      results.stackCost = await runStackCostBench({
        accounts: passwordAccounts.filter((account) => account.email.startsWith('user')),
        seconds: Number(values['memory-seconds']),
        idleRuns: Number(values['idle-runs']),
        progress: say,
      });
    }
    if (wanted('kill-restart')) {
      // The long variant of test/mailstack/killRestart.test.ts: three times the kills and checks.
      const { runKillScenario } = await import('../scripts/lib/killRestart');
      const kills = Number(values.kills);
      say(`kill-restart: ${kills} SIGKILLs of the scanner during ${kills} checks`);
      results.killRestart = await runKillScenario({
        kills,
        checks: kills,
        accounts: ['inbox', 'junk', 'trash', 'promo', 'archive'],
        intervalMs: 200,
        leaseTtlMs: 1000,
      });
    }
    if (wanted('audit')) {
      const { runAuditBench } = await import('./audit');
      // The detection section's accounts and checks, with the audit on and off side by side.
      results.audit = await runAuditBench({
        accounts: passwordAccounts.slice(0, 20),
        checks: Number(values.checks),
        rounds: Number(values['audit-rounds']),
        costChecks: Number(values['cost-checks']),
        intervalMs: Number(values.interval),
        progress: say,
      });
    }
    if (wanted('webhooks')) {
      const { runWebhookBench } = await import('./webhooks');
      results.webhooks = await runWebhookBench({
        accounts: passwordAccounts.slice(0, 5),
        checks: Number(values['webhook-checks']),
        intervalMs: Number(values.interval),
        progress: say,
      });
    }
  } finally {
    if (needsStack) mailStack('stop');
  }
  if (wanted('api')) {
    const { runApiBench } = await import('./api');
    say('api: autocannon against npm start');
    results.api = await runApiBench({});
  }
  if (wanted('load')) {
    const { runLoadBench } = await import('./load');
    say(`load: 200 clients for ${values['load-seconds']} s`);
    results.load = await runLoadBench({ durationSec: Number(values['load-seconds']), connections: 200 });
  }
  if (wanted('cold-start')) {
    const { runColdStartBench } = await import('./coldStart');
    say('cold start: bundles and fresh-process init');
    results.coldStart = await runColdStartBench();
  }
  if (wanted('fairness')) {
    const { runFairnessBench } = await import('./fairness');
    say('fairness: a second key while one key floods GET at 10x its limit and made-up keys flood');
    results.fairness = await runFairnessBench();
  }
  if (wanted('linear-parsing')) {
    const { runLinearParsingBench } = await import('./linearParsing');
    say('linear parsing: every reader of sender or client text on hostile input up to 1 MB');
    results.linearParsing = await runLinearParsingBench();
  }
  if (wanted('simulation')) {
    const { runSimulationBench } = await import('./simulation');
    results.simulation = await runSimulationBench({
      accounts: Number(values['simulation-accounts']),
      progress: say,
    });
  }
  if (wanted('wake-up')) {
    const { runWakeUpBench } = await import('./wakeUp');
    const records = Number(values['wake-up-records']);
    say(`wake-up: ${records} stream records one at a time, a loop holding the lease`);
    results.wakeUp = await runWakeUpBench({ records });
  }
  if (wanted('monitor-cost')) {
    // Computed from the price table and the detection section's measured check cost (this run's, else the last).
    const { runMonitorCostBench } = await import('./monitorCost');
    const last = existsSync(join(ROOT, 'bench/results/latest.json'))
      ? (JSON.parse(readFileSync(join(ROOT, 'bench/results/latest.json'), 'utf8')) as {
          results: Record<string, unknown>;
        })
      : undefined;
    results.monitorCost = runMonitorCostBench(results.detection ?? last?.results.detection);
  }
  // Only when asked for: its goal is a non-root user's, and a full run is root's (it starts the mail stack).
  if (values.only?.includes('unit-loop')) {
    const { runUnitLoopBench } = await import('./unitLoop');
    say('unit loop: npm run test:unit, once');
    results.unitLoop = await runUnitLoopBench();
  }
  if (wanted('properties')) {
    const { runPropertyBench } = await import('./properties');
    say(`properties: ${values['property-cases']} generated messages`);
    results.properties = await runPropertyBench({ cases: Number(values['property-cases']) });
  }
  const run = {
    startedAt: stamp.at,
    finishedAt: new Date().toISOString(),
    stamp,
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    results,
  };
  // Each section carries its run's stamp, so a table rewritten from a merge of runs names each run.
  for (const section of Object.values(results))
    Object.assign(section as StampedSection, { ranAt: stamp.at, stamp, command: run.command });
  // A partial run (--only) keeps the other sections of the last run, each marked with when it ran.
  const latest = join(ROOT, 'bench/results/latest.json');
  const previous =
    existsSync(latest) && values.only ? (JSON.parse(readFileSync(latest, 'utf8')) as typeof run) : undefined;
  const merged = { ...run, results: { ...(previous?.results ?? {}), ...results } };
  if (values['no-write']) {
    process.stdout.write(`${goalsTable(merged.results)}\n`);
    return;
  }
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(latest, `${JSON.stringify(merged, null, 2)}\n`);
  writeTable(merged.results);
  say('wrote bench/results/latest.json and the table in BENCHMARKS.md');
};

main().catch((error: unknown) => {
  say(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
