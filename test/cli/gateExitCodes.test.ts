// The check command as a release gate, run in-process against a stub service on loopback: every assertion form,
// exit 0 when all hold, 1 with each failing value, 2 for a wrong expression, a bad baseline or a service error, and
// the changes since a saved run, in the table and in --json.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/freePort';
import { runCheck } from '../../shared/cli/placementCheck';
import type { PlacementReport } from '../../shared/client';
import { loadCliSettings } from '../../shared/config';
import { sampleReport } from '../support/placementReport';

const KEY = 'stub-key';
const CHECK_ID = 'chk1';
let dir: string;
let server: Server;
let url: string;
let requests = 0;
/** What the stub answers: a finished check whose report is `report`; `startStatus` other than 200 fails the start. */
let stub: { report: PlacementReport; startStatus: number; reportRoute: boolean };

const stubService = () =>
  createServer((request, response) => {
    requests++;
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const { report } = stub;
    if (request.method === 'POST' && request.url === '/api/spam-check/start')
      return stub.startStatus === 200
        ? send(200, { check_id: CHECK_ID, accounts: report.accounts.map((account) => account.email) })
        : send(stub.startStatus, { detail: 'Internal server error' });
    if (request.method === 'GET' && request.url === `/api/spam-check/${CHECK_ID}`)
      return send(200, {
        check_id: CHECK_ID,
        status: report.status,
        received: report.summary.received,
        total: report.summary.total,
        results: report.accounts.map(({ email, category }) => ({ email, category })),
      });
    if (stub.reportRoute && request.method === 'GET' && request.url === `/api/spam-check/${CHECK_ID}/report`)
      return send(200, report);
    send(404, { detail: 'Not found' });
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-gate-'));
  server = stubService();
  server.listen(0, '127.0.0.1');
  await new Promise((ready) => server.once('listening', ready));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((closed) => server?.close(closed));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  stub = { report: sampleReport(CHECK_ID), startStatus: 200, reportRoute: true };
  requests = 0;
});

/** Runs `check --no-send` with these options; stdout and stderr as text. */
const check = async (args: string[], serviceUrl = url) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCheck([...args, '--no-send', '--poll', '50ms'], {
    settings: { ...loadCliSettings({}), serviceUrl, apiKey: KEY },
    stdout: (text) => out.push(text),
    stderr: { write: (text: string) => err.push(text) },
  });
  return { code, stdout: out.join('\n'), stderr: err.join('') };
};
const asserting = (...expressions: string[]) => expressions.flatMap((expression) => ['--assert', expression]);
const lastLine = (text: string) => text.trim().split('\n').at(-1);

describe('check --assert', () => {
  it('exits 0 when every form holds, listing each with its value', async () => {
    const run = await check(
      asserting(
        'gmail.inbox >= 0.5',
        'gmail.promotions == 50%',
        'imap.spam == 1',
        'inbox_rate >= 0.3',
        'spam <= 0.34',
        'auth.spf == pass',
        'auth.dmarc != fail',
        'seconds_to_deliver.p95 <= 60',
        'seconds_to_deliver.max < 3',
      ),
    );
    expect(run.stderr).not.toContain('assertion failed');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('assertions:');
    expect(run.stdout).toContain(
      '  held    gmail.inbox >= 0.5: 0.5 (1 of 2 gmail accounts in primary or updates)',
    );
    expect(run.stdout).toContain('  held    auth.spf == pass: pass (all 3 received copies)');
    expect(run.stdout).toContain('  held    seconds_to_deliver.p95 <= 60: 2 (p95 over 3 copies)');
    expect(run.stdout.match(/^ {2}held {4}/gm)).toHaveLength(9);
  });

  it('exits 1 when one fails, printing each failing assertion with its measured value', async () => {
    const run = await check(
      asserting('gmail.inbox >= 0.8', 'imap.spam == 1', 'auth.dkim == pass', 'outlook.spam == 0'),
    );
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n').slice(-3)).toEqual([
      'check: assertion failed: gmail.inbox >= 0.8: measured 0.5 (1 of 2 gmail accounts in primary or updates)',
      'check: assertion failed: auth.dkim == pass: measured pass 1, fail 1, none 1 (2 of 3 received copies do not hold: seed2@gmail.com fail, junk@mail.test none)',
      'check: assertion failed: outlook.spam == 0: measured not measured (no outlook accounts in this check)',
    ]);
    expect(run.stdout).toContain('  FAILED  gmail.inbox >= 0.8: 0.5');
  });

  it('exits 1 for a check that timed out, whatever it asserts', async () => {
    const report = sampleReport(CHECK_ID);
    stub.report = { ...report, status: 'timeout', summary: { ...report.summary, received: 2 } };
    const [, second] = stub.report.accounts;
    if (second) second.category = 'pending';
    const run = await check(asserting('imap.spam == 1'));
    expect(run.code).toBe(1);
    expect(lastLine(run.stderr)).toBe(
      'check: check chk1 timed out: 1 of 3 accounts never received the message',
    );
  });

  it('exits 2 on a wrong expression, naming the problem and the accepted forms, before asking the service', async () => {
    const run = await check(asserting('gmail.inbox >= 0.8', 'gmail.inbx >= 0.8'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^check: --assert "gmail\.inbx >= 0\.8": "inbx" is not a placement/);
    expect(run.stderr).toContain('accepted forms:');
    expect(requests).toBe(0);
    const noBaseline = await check(asserting('no_regression'));
    expect(noBaseline.code).toBe(2);
    expect(noBaseline.stderr).toContain(
      '--assert no_regression compares with an earlier run: add --baseline FILE',
    );
    const both = await check([...asserting('inbox_rate >= 0.5'), '--min-inbox', '0.5']);
    expect(both.code).toBe(2);
  });

  it('exits 2 on a service error, where without --assert it exits 1', async () => {
    stub.startStatus = 500;
    const run = await check(asserting('inbox_rate >= 0.3'));
    expect(run.code).toBe(2);
    expect(lastLine(run.stderr)).toMatch(/^check: the service at http:\/\/127\.0\.0\.1:\d+ answered 500/);
    expect((await check([])).code).toBe(1);
    const unreachable = await check(asserting('inbox_rate >= 0.3'), `http://127.0.0.1:${await freePort()}`);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toContain('ECONNREFUSED');
  });

  it('exits 2 when the service gives no placement report that an assertion needs', async () => {
    stub.reportRoute = false;
    const run = await check(asserting('inbox_rate >= 0.3', 'gmail.inbox >= 0.5'));
    expect(run.code).toBe(2);
    expect(lastLine(run.stderr)).toBe(
      'check: the service gave no placement report, which gmail.inbox >= 0.5 needs',
    );
    expect((await check(asserting('inbox_rate >= 0.3'))).code).toBe(0);
  });

  it('adds each assertion, its value and whether it held to --json', async () => {
    const run = await check([...asserting('gmail.inbox >= 0.8', 'auth.spf == pass'), '--json']);
    expect(run.code).toBe(1);
    const result = JSON.parse(lastLine(run.stdout) ?? '');
    expect(result.assertions).toEqual([
      {
        expression: 'gmail.inbox >= 0.8',
        held: false,
        value: 0.5,
        detail: '1 of 2 gmail accounts in primary or updates',
      },
      { expression: 'auth.spf == pass', held: true, value: 'pass', detail: 'all 3 received copies' },
    ]);
    expect(result).toMatchObject({ check_id: CHECK_ID, status: 'complete', report: { check_id: CHECK_ID } });
  });
});

describe('check --baseline', () => {
  /** Saves this run's --json as a later run's baseline. */
  const saveRun = async (name: string) => {
    const run = await check(['--json']);
    expect(run.code).toBe(0);
    const file = join(dir, name);
    writeFileSync(file, lastLine(run.stdout) ?? '');
    return file;
  };

  it('prints nothing changed against itself and holds no_regression', async () => {
    const baseline = await saveRun('same.json');
    const run = await check(['--baseline', baseline, ...asserting('no_regression')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`changes since check ${CHECK_ID}:\n  nothing changed`);
  });

  it('prints what got worse, fails no_regression with the count, and carries the changes in --json', async () => {
    const better = sampleReport(CHECK_ID);
    const [, second] = better.accounts;
    if (!second?.auth) throw new Error('sample report changed');
    second.category = 'primary';
    second.auth.dkim = 'pass';
    better.summary.by_provider.gmail = { total: 2, received: 2, inbox: 2, spam: 0, other: 0 } as never;
    stub.report = better;
    const baseline = await saveRun('better.json');
    stub.report = sampleReport(CHECK_ID);

    const run = await check(['--baseline', baseline, ...asserting('no_regression')]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('  worse    placement: gmail inbox 2/2 → 1/2');
    expect(run.stdout).toContain('  worse    authentication: gmail dkim pass 2/2 → 1/2');
    expect(lastLine(run.stderr)).toBe(
      'check: assertion failed: no_regression: measured 3 (3 worse: inbox, every account 2/3 → 1/3; gmail inbox 2/2 → 1/2; gmail dkim pass 2/2 → 1/2)',
    );
    const json = await check(['--baseline', baseline, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(lastLine(json.stdout) ?? '').baseline.changes).toContainEqual({
      section: 'placement',
      subject: 'gmail inbox',
      before: '2/2',
      after: '1/2',
      worse: true,
    });
  });

  it('exits 2 on a file that is not a saved run, before asking the service', async () => {
    const file = join(dir, 'table.txt');
    writeFileSync(file, 'inbox rate 100%\n');
    const run = await check(['--baseline', file, ...asserting('no_regression')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `check: --baseline ${file}: not JSON: save the output of \`check --json\` of an earlier run\n`,
    );
    expect(requests).toBe(0);
  });
});
