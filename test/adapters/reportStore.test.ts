// The placement report's evidence in the check item, on AWS's own DynamoDB Local (which enforces DynamoDB's 4 KB
// expression and 400 KB item limits) and on dynalite: a full batch of 25 accounts with the largest evidence the
// scanner can produce is one conditional UpdateItem, read back whole by get; a second write of one of them is
// refused and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanReason } from '../../shared/scanner/authResults';
import { MAX_BATCH } from '../../shared/scanner/ResultBatcher';
import type { ResultEntry } from '../../shared/scanner/scannerPorts';
import { MAX_RULE_LENGTH, MAX_RULES } from '../../shared/scanner/spamVerdict';
import { ManualClock } from '../support/manualClock';
import { startTestService, type TestService } from '../support/testService';

const emails = Array.from(
  { length: MAX_BATCH },
  (_, index) => `user${String(index).padStart(3, '0')}@mail.test`,
);

/** A reason at its cap in UTF-8 bytes, of four-byte characters. */
const LONGEST_REASON = cleanReason('\u{1D11E}'.repeat(200));

/** The largest evidence: every string at its cap (see the hostile-header tests of the protocol suite). */
const largest = (index: number): ResultEntry['details'] => ({
  folder: `[Gmail]/${'F'.repeat(100)}`,
  providerVerdict: 'junk',
  deliveredAt: 1_800_000_000_000 + index,
  sentAt: 1_800_000_000_000 - 1000,
  auth: {
    spf: 'temperror',
    dkim: 'permerror',
    dmarc: 'temperror',
    arc: 'permerror',
    authserv_id: 'a'.repeat(128),
    reasons: { spf: LONGEST_REASON, dkim: LONGEST_REASON, dmarc: LONGEST_REASON, arc: LONGEST_REASON },
  },
  spam: {
    filter: 'spamassassin',
    score: -99999.9999,
    threshold: -99999.9999,
    verdict: 'spam',
    rules: Array.from({ length: MAX_RULES }, (_, rule) => `${'R'.repeat(MAX_RULE_LENGTH - 3)}_${rule}`),
  },
});

describe.each(['dynamodb-local', 'dynalite'] as const)(
  'placement evidence in the check item on %s',
  (store) => {
    let service: TestService & { clock: ManualClock };
    beforeAll(async () => {
      // The real time, not a fixed date: DynamoDB Local deletes items whose purgeAt has passed by the real clock.
      service = await startTestService(new ManualClock(Date.now()), { store });
      await service.addAccounts(...emails.map((email) => ({ email, provider: 'gmail' })));
    });
    afterAll(async () => service.close());

    it('writes 25 results with the largest evidence in one UpdateItem and reads them back whole', async () => {
      const key = await service.issueKey('default');
      const started = await service.request('POST', '/api/spam-check/start', {
        authorization: `Bearer ${key}`,
      });
      const checkId = (started.body as { check_id: string }).check_id;
      const checks = service.openChecks;
      const now = service.clock.now();
      const entries = emails.map((email, index) => ({
        email,
        category: 'spam' as const,
        details: largest(index),
      }));
      expect(await checks.recordResults(checkId, entries, now)).toBe(true);
      const check = await service.deps.checks.get(checkId);
      expect(check?.received).toBe(MAX_BATCH);
      expect(check?.providers?.[emails[0] ?? '']).toBe('gmail');
      expect(check?.details?.[emails[7] ?? '']).toEqual({ ...largest(7), recordedAt: now });
      // Recorded once: a repeat is refused and leaves the first write as it was.
      expect(
        await checks.recordResult(checkId, emails[0] ?? '', 'primary', now + 1, { folder: 'INBOX' }),
      ).toBe('already-recorded');
      expect((await service.deps.checks.get(checkId))?.details?.[emails[0] ?? '']?.folder).toBe(
        largest(0).folder,
      );
    });
  },
);
