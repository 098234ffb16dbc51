// The report archive's store (DynamoReportArchive) on AWS's own DynamoDB Local and on dynalite: a report kept and
// read back whole within its scope only; the history newest first, paged by a cursor, with expired entries skipped
// even where a page's query reads only expired ones; a report too large for an item kept without its evidence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoReportArchive } from '../../shared/adapters/dynamo/DynamoReportArchive';
import { HistoryCursorError } from '../../shared/domain/reportArchive';
import { ManualClock } from '../support/manualClock';
import { reportOf, seedsAt } from '../support/seriesReports';
import { startTestService, type TestService } from '../support/testService';

const DAY = 24 * 60 * 60 * 1000;
const idOf = (n: number) =>
  `chk${String(n)
    .padStart(17, 'a')
    .replace(/\d/g, (d) => 'abcdefghij'[Number(d)] ?? 'a')}`;

describe.each(['dynamodb-local', 'dynalite'] as const)('the report archive on %s', (store) => {
  let service: TestService & { clock: ManualClock };
  let archive: DynamoReportArchive;
  // The real time: DynamoDB Local deletes items whose purgeAt has passed by the real clock.
  const now = Date.now();
  const started = (n: number) => new Date(now - (10 - n) * 60_000).toISOString();

  beforeAll(async () => {
    service = await startTestService(new ManualClock(now), { store });
    archive = new DynamoReportArchive(service.client, service.table);
    // Six checks of one scope, the 2nd and 3rd expiring an hour from now, and one of another scope.
    for (let n = 0; n < 6; n++)
      await archive.put({
        scope: 'default',
        report: reportOf(idOf(n), seedsAt('gmail', 3, n % 4), started(n)),
        expiresAt: n === 2 || n === 3 ? now + 60 * 60_000 : now + 30 * DAY,
      });
    await archive.put({
      scope: 'other',
      report: reportOf(idOf(9), seedsAt('gmail', 3, 3), started(9)),
      expiresAt: now + DAY,
    });
  });
  afterAll(async () => service?.close());

  it('reads reports back whole, of the scope only and not past their expiry', async () => {
    const found = await archive.get('default', [idOf(1), idOf(2), idOf(9), 'abcdefghijklmnopqrst'], now);
    expect([...found.keys()].sort()).toEqual([idOf(1), idOf(2)].sort());
    expect(found.get(idOf(1))).toEqual(reportOf(idOf(1), seedsAt('gmail', 3, 1), started(1)));
    const later = await archive.get('default', [idOf(1), idOf(2)], now + 2 * 60 * 60_000);
    expect([...later.keys()]).toEqual([idOf(1)]);
  });

  it('lists newest first, pages by cursor, and skips expired entries even across a whole page of them', async () => {
    const ids = async (at: number, limit: number) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await archive.list('default', at, limit, cursor);
        seen.push(...page.checks.map((check) => check.check_id));
        if (page.next === null) break;
        cursor = page.next;
      }
      return seen;
    };
    expect(await ids(now, 2)).toEqual([5, 4, 3, 2, 1, 0].map(idOf));
    expect(await ids(now + 2 * 60 * 60_000, 2)).toEqual([5, 4, 1, 0].map(idOf));
    const first = await archive.list('default', now, 3);
    expect(first.checks[0]).toMatchObject({ check_id: idOf(5), total: 3, inbox: { count: 1, of: 3 } });
    expect((await archive.list('other', now, 20)).checks.map((check) => check.check_id)).toEqual([idOf(9)]);
    await expect(archive.list('default', now, 2, 'not-a-cursor')).rejects.toBeInstanceOf(HistoryCursorError);
  });

  it('keeps a report too large for one item without its evidence', async () => {
    const big = reportOf(idOf(7), seedsAt('gmail', 600, 300), started(7));
    for (const account of big.accounts) account.provider_verdict = 'x'.repeat(600);
    await archive.put({ scope: 'big', report: big, expiresAt: now + DAY });
    const kept = (await archive.get('big', [idOf(7)], now)).get(idOf(7));
    expect(kept?.accounts).toHaveLength(600);
    expect(kept?.accounts[0]).toEqual({
      email: big.accounts[0]?.email,
      provider: 'gmail',
      category: 'primary',
      folder: null,
    });
  });
});
