// A tick's account sweeps moving their cursors over dynalite: one BatchWriteItem for the accounts whose results
// were written together, each account's cursor sent only after its own result is written, and no sweep reported
// ok before DynamoDB acknowledged its cursor.
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../shared/adapters/dynamo/client';
import { DynamoCursorStore } from '../../shared/adapters/dynamo/DynamoCursorStore';
import type { DetectedCategory } from '../../shared/domain/categories';
import type { RecordOutcome } from '../../shared/domain/ports';
import { ensureTable } from '../../shared/local/bootstrap';
import { type LocalDynamo, startDynalite } from '../../shared/local/dynalite';
import { createLogger } from '../../shared/log';
import { Scanner } from '../../shared/scanner/Scanner';
import { ManualClock } from '../support/manualClock';
import { credentialsOf, FakeChecks } from '../support/scannerFakes';

const TABLE = 'cursors';
const CHECK = 'batchedbatchedbatche';
const SLOW_MS = 80;
const EMAILS = Array.from({ length: 10 }, (_, index) => `a${index}@mail.test`);
const slow = (email: string) => EMAILS.indexOf(email) >= 5;

/** Results written at once for the first five accounts, SLOW_MS later for the others; each noted when written. */
class TimedChecks extends FakeChecks {
  constructor(private readonly log: string[]) {
    super([{ checkId: CHECK, accounts: EMAILS }]);
  }
  override async recordResult(
    checkId: string,
    email: string,
    category: DetectedCategory,
    now: number,
  ): Promise<RecordOutcome> {
    if (slow(email)) await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
    const outcome = await super.recordResult(checkId, email, category, now);
    this.log.push(`result ${email}`);
    return outcome;
  }
}

/** Notes each BatchWriteItem's accounts when it is sent and when DynamoDB answers it. */
const loggingClient = (real: DynamoDBDocumentClient, log: string[]) =>
  ({
    send: async (command: { input: unknown }) => {
      if (!(command instanceof BatchWriteCommand)) return real.send(command as never);
      const emails = (command.input.RequestItems?.[TABLE] ?? []).map(
        (request) => request.PutRequest?.Item?.email,
      );
      log.push(`sent ${emails.join(',')}`);
      const answer = await real.send(command);
      log.push(`acked ${emails.join(',')}`);
      return answer;
    },
  }) as unknown as DynamoDBDocumentClient;

describe('cursor writes of a tick', () => {
  let dynamo: LocalDynamo;
  let real: DynamoDBDocumentClient;
  beforeAll(async () => {
    dynamo = await startDynalite({ port: 0 });
    real = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
    await ensureTable(real, TABLE);
  });
  afterAll(async () => {
    real.destroy();
    await dynamo.close();
  });

  it('go in one batch per group of results, each after its results and before its sweep says ok', async () => {
    const clock = new ManualClock();
    const log: string[] = [];
    const scanner = new Scanner({
      checks: new TimedChecks(log),
      cursors: new DynamoCursorStore(loggingClient(real, log), TABLE),
      credentials: { get: async (email) => credentialsOf(email) },
      connector: {
        async open({ email }) {
          const [user, domain] = email.split('@');
          const copy = {
            uid: 1,
            internalDate: clock.now(),
            headers: Buffer.from(`Delivered-To: ${user}+tc_${CHECK}@${domain}\r\nSubject: test\r\n\r\n`),
          };
          return {
            gmail: false,
            folders: async () => [{ path: 'INBOX', flags: [], uidNext: 2, uidValidity: '1', messages: 1 }],
            headersAfter: async () => [],
            headersSince: async () => [copy],
            tabsOf: async () => new Map(),
            close: async () => undefined,
          };
        },
      },
      clock,
      log: createLogger('test', 'error'),
      events: { swept: (sweep) => log.push(`swept ${sweep.email} ${sweep.ok}`) },
    });

    const sweeps = await scanner.sweepOnce();
    expect(sweeps.map((sweep) => [sweep.email, sweep.ok, sweep.placements])).toEqual(
      EMAILS.map((email) => [email, true, 1]),
    );
    const sent = log.filter((line) => line.startsWith('sent '));
    expect(sent.map((line) => line.slice(5).split(',').sort())).toEqual([
      EMAILS.slice(0, 5),
      EMAILS.slice(5),
    ]);
    const at = (line: string) => log.indexOf(line);
    const batchOf = (kind: 'sent' | 'acked', email: string) =>
      log.findIndex(
        (line) =>
          line.startsWith(`${kind} `) &&
          line
            .slice(kind.length + 1)
            .split(',')
            .includes(email),
      );
    for (const email of EMAILS) {
      expect(at(`result ${email}`), email).toBeGreaterThanOrEqual(0);
      expect(batchOf('sent', email), email).toBeGreaterThan(at(`result ${email}`));
      expect(at(`swept ${email} true`), email).toBeGreaterThan(batchOf('acked', email));
    }
    expect(await new DynamoCursorStore(real, TABLE).get('a7@mail.test', 'INBOX')).toEqual({
      uidValidity: '1',
      lastUid: 1,
    });
  });
});
