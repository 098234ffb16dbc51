// The report against the control on the real loopback mail stack: a calibration through the stack's SMTP port, then
// a check in the same scope. Where this message went to spam but the control landed in the inbox, the reading puts
// the message and its sending side first; where the control went to spam too, the seeds first.
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSeedHistory } from '../../shared/adapters/dynamo/DynamoSeedHistory';
import { lookFirst } from '../../shared/calibration/domain/controlReading';
import { calibrateScope } from '../../shared/calibration/usecases/calibrate';
import { composeCalibration } from '../../shared/composition/calibration';
import type { PlacementReport } from '../../shared/domain/placementReport';
import { createLogger } from '../../shared/log';
import { GTUBE, SMTP, stackAccount } from '../support/mailStack';
import { pollUntilDone, type ScanHarness, startScanHarness } from '../support/scanHarness';
import { fileIntoJunk } from '../support/sieveRule';

/** inbox@ runs no filter, junk@ runs SpamAssassin: a clean control lands in both inboxes, GTUBE in junk@'s spam. */
const MESSAGE_SCOPE = 'control-message';
/** user009@ files everything into Junk (a seed a filter learned to distrust): the control too. */
const SEED_SCOPE = 'control-seed';
const WORN = 'user009@mail.test';
let harness: ScanHarness;
let calibration: ReturnType<typeof composeCalibration>;
let removeRule: () => void;

beforeAll(async () => {
  harness = await startScanHarness([
    ...['inbox@mail.test', 'junk@mail.test'].map((email) => ({
      ...stackAccount(email),
      scope: MESSAGE_SCOPE,
    })),
    ...['user008@mail.test', WORN].map((email) => ({ ...stackAccount(email), scope: SEED_SCOPE })),
  ]);
  harness.service.deps.seeds = new DynamoSeedHistory(harness.service.client, harness.service.table);
  harness.startRunner();
  calibration = composeCalibration({
    client: harness.service.client,
    tableName: harness.service.table,
    clock: harness.service.clock,
    log: createLogger('test-calibrate', 'error', () => undefined),
    sender: {
      smtpUrl: `smtp://${SMTP.host}:${SMTP.port}`,
      password: undefined,
      from: 'control@sender.test',
      option: 'CONTROL_SMTP_URL',
    },
  });
  calibration.deps.trigger = harness.service.deps.trigger;
  calibration.deps.pollMs = 250;
  removeRule = fileIntoJunk(WORN, 'true');
});

afterAll(async () => {
  removeRule?.();
  await calibration?.close();
  await harness?.close();
});

const transport = nodemailer.createTransport({ ...SMTP, secure: false, ignoreTLS: true });

/** A check in `scope` with one message to all its addresses, and its report once every copy is placed. */
const checkWith = async (scope: string, text: string): Promise<PlacementReport> => {
  const key = await harness.service.issueKey(scope);
  const authorization = `Bearer ${key}`;
  const started = await harness.service.request('POST', '/api/spam-check/start', { authorization });
  const { check_id: checkId, accounts } = started.body as { check_id: string; accounts: string[] };
  await transport.sendMail({
    from: 'Sender <sender@sender.test>',
    to: 'undisclosed-recipients:;',
    bcc: accounts,
    subject: 'Our news',
    text,
  });
  expect(await pollUntilDone(harness.service, key, checkId)).toMatchObject({ status: 'complete' });
  const response = await harness.service.request('GET', `/api/spam-check/${checkId}/report`, {
    authorization,
  });
  return response.body as PlacementReport;
};

describe('the report against the control on the mail stack', () => {
  it('spam where the control landed in the inbox: the message and its sending side first', async () => {
    const { run } = await calibrateScope(calibration.deps, MESSAGE_SCOPE);
    expect(run.byProvider.imap).toMatchObject({ total: 2, inbox: 2 });
    const report = await checkWith(MESSAGE_SCOPE, `Hello.\n${GTUBE}\n`);
    expect(report.summary.by_provider.imap).toMatchObject({
      spam: 1,
      control: { check_id: run.checkId, total: 2, inbox: 2, spam: 0, missing: 0 },
    });
    expect(report.accounts.every((account) => account.suspect === false)).toBe(true);
    expect(lookFirst(report)).toEqual([
      expect.objectContaining({ provider: 'imap', order: ['message', 'seed'], because: 'control-inbox' }),
    ]);
  });

  it('spam where the control went to spam too: the seed first', async () => {
    const { run } = await calibrateScope(calibration.deps, SEED_SCOPE);
    expect(run.byProvider.imap).toMatchObject({ total: 2, inbox: 1, spam: 1 });
    const report = await checkWith(SEED_SCOPE, 'Hello, a plain note with nothing a filter should mind.\n');
    expect(report.accounts.find((account) => account.email === WORN)).toMatchObject({ category: 'spam' });
    expect(report.summary.by_provider.imap?.control).toMatchObject({ total: 2, inbox: 1, spam: 1 });
    expect(lookFirst(report)).toEqual([
      expect.objectContaining({ provider: 'imap', order: ['seed', 'message'], because: 'control-astray' }),
    ]);
  });
});
