// The repository's GitHub Action (action.yml) run step by step here, as a runner would, against a real `npm start`
// over the loopback mail stack: a signed clean message passes every assertion (exit 0, the report's path as the
// output); a GTUBE message with a wrong DKIM key fails against that run as its baseline (exit 1, each failing value).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Started, spawnEntry } from '../../scripts/lib/process';
import { readAction, runAction } from '../support/compositeAction';
import { GTUBE, SMTP, stackAccount } from '../support/mailStack';

const ROOT = resolve(import.meta.dirname, '../..');
const DKIM = join(ROOT, 'test/fixtures/dkim');
const ACCOUNTS = ['inbox@mail.test', 'junk@mail.test'];
let dir: string;
let service: Started;
let env: { url: string; key: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-action-'));
  writeFileSync(join(dir, 'local.json'), JSON.stringify({ accounts: ACCOUNTS.map(stackAccount) }));
  service = await spawnEntry(
    'shared/main/start.ts',
    {
      PORT: '0',
      DATA_DIR: join(dir, 'data'),
      LOCAL_CONFIG: join(dir, 'local.json'),
      SCAN_INTERVAL_MS: '500',
      LOG_LEVEL: 'warn',
    },
    /listening on (http:\/\/127\.0\.0\.1:\d+)/,
  );
  const key = /\(shown once, save it\): (\S+)/.exec(service.output())?.[1];
  if (!key) throw new Error(`npm start printed no key:\n${service.output()}`);
  env = { url: (service as Started & { match: RegExpMatchArray }).match[1] ?? '', key };
});

afterAll(async () => {
  await service?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The action's inputs for one message from news@sender.test, DKIM-signed with the fixture key `key`. */
const inputs = (name: string, text: string, key: string, assertions: string, baseline = '') => {
  writeFileSync(join(dir, `${name}.txt`), text);
  return {
    url: env.url,
    'api-key': env.key,
    'smtp-url': `smtp://${SMTP.host}:${SMTP.port}`,
    from: 'News <news@sender.test>',
    subject: `Gate ${name}`,
    'text-file': join(dir, `${name}.txt`),
    'dkim-key': join(DKIM, key),
    'dkim-selector': 's1',
    'dkim-domain': 'sender.test',
    assertions,
    baseline,
    timeout: '120s',
  };
};

describe('action.yml', () => {
  it('is a composite action whose scripts read inputs only from the environment', () => {
    const action = readAction(join(ROOT, 'action.yml'));
    expect(action.runs.using).toBe('composite');
    expect(action.outputs.report?.value).toMatch(/^\$\{\{ steps\.check\.outputs\.report \}\}$/);
    for (const name of ['url', 'api-key', 'smtp-url', 'smtp-password', 'assertions', 'baseline'])
      expect(action.inputs[name]).toBeDefined();
    const scripts = action.runs.steps.flatMap((step) => (step.run === undefined ? [] : [step.run]));
    expect(scripts).toHaveLength(2);
    // An input spliced into a script is shell injection; through env it is only ever a value.
    for (const script of scripts) expect(script).not.toContain('${{');
  });

  it('passes a clean signed message, then fails a GTUBE one with a wrong key against it as the baseline', async () => {
    const clean = await runAction(
      ROOT,
      inputs(
        'clean',
        'Our monthly news.\n',
        'sender.test.s1.key',
        [
          'inbox_rate >= 1',
          '  # Every copy at the stack is an imap account.',
          '',
          'imap.spam == 0',
          'auth.dkim == pass',
          'seconds_to_deliver.p95 <= 60',
        ].join('\n'),
      ),
    );
    expect(clean.stderr).not.toContain('assertion failed');
    expect(clean.code).toBe(0);
    const reportPath = clean.outputs.check?.report ?? '';
    expect(reportPath).toMatch(/inbox-placement-report\.json$/);
    const report = JSON.parse(readFileSync(reportPath, 'utf8'));
    expect(report).toMatchObject({ status: 'complete', received: 2, total: 2, inbox_rate: 1 });
    expect(report.assertions.map((result: { held: boolean }) => result.held)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    const baseline = join(dir, 'baseline.json');
    writeFileSync(baseline, readFileSync(reportPath));

    const spam = await runAction(
      ROOT,
      inputs(
        'spam',
        `Our monthly news.\n${GTUBE}\n`,
        'wrong.key',
        'no_regression\nauth.dkim == pass\ninbox_rate >= 0.5',
        baseline,
      ),
    );
    expect(spam.code).toBe(1);
    expect(spam.stderr).toMatch(/^check: assertion failed: no_regression: measured [1-9]\d* \(/m);
    expect(spam.stderr).toMatch(
      /^check: assertion failed: auth\.dkim == pass: measured fail \(2 of 2 received/m,
    );
    expect(spam.stderr).not.toContain('inbox_rate >= 0.5');
    const failed = JSON.parse(readFileSync(spam.outputs.check?.report ?? '', 'utf8'));
    expect(failed.baseline.check_id).toBe(report.check_id);
    expect(failed.baseline.changes).toContainEqual({
      section: 'authentication',
      subject: 'imap dkim pass',
      before: '2/2',
      after: '0/2',
      worse: true,
    });
    expect(failed.assertions).toContainEqual({
      expression: 'inbox_rate >= 0.5',
      held: true,
      value: 0.5,
      detail: '1 of 2 accounts in primary or updates',
    });
  });
});
