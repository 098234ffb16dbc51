// A placement report as the service would answer it, for the check CLI's tests: Gmail with a failed DKIM, the
// local stack with a GTUBE spam verdict (no reasons given: the fixed wording), and values a hostile sender could shape (markup, control characters).
import type { PlacementReport } from '../../shared/client';
import { rateOf } from '../../shared/usecases/getReport';

export const HOSTILE_FOLDER = '<img src=x onerror=alert(1)>\u001b[31mred';

type AuthResults = NonNullable<PlacementReport['accounts'][number]['auth']>;

/** A receiving side's results as the report gives them: all three pass at Gmail, no reasons, but for `overrides`. */
export const authResults = (overrides: Partial<AuthResults> = {}): AuthResults => ({
  spf: 'pass',
  dkim: 'pass',
  dmarc: 'pass',
  arc: null,
  authserv_id: 'mx.google.com',
  reasons: { spf: null, dkim: null, dmarc: null, arc: null },
  ...overrides,
});

export const sampleReport = (checkId = 'chk1'): PlacementReport => ({
  check_id: checkId,
  status: 'complete',
  started_at: '2026-11-25T09:00:00.000Z',
  completed_at: '2026-11-25T09:00:04.000Z',
  summary: {
    total: 3,
    received: 3,
    inbox_rate: { of_received: 1 / 3, of_total: 1 / 3 },
    rates: { inbox: rateOf(1, 3) },
    by_category: {
      primary: 1,
      spam: 1,
      promotions: 1,
      updates: 0,
      social: 0,
      forums: 0,
      trash: 0,
      unknown: 0,
      pending: 0,
    },
    by_provider: {
      gmail: {
        total: 2,
        received: 2,
        inbox: 1,
        spam: 0,
        other: 1,
        rates: { inbox: rateOf(1, 2), spam: rateOf(0, 2) },
      },
      imap: {
        total: 1,
        received: 1,
        inbox: 0,
        spam: 1,
        other: 0,
        rates: { inbox: rateOf(0, 1), spam: rateOf(1, 1) },
      },
    },
  },
  accounts: [
    {
      email: 'seed1@gmail.com',
      provider: 'gmail',
      category: 'primary',
      folder: 'INBOX',
      delivered_at: '2026-11-25T09:00:02.000Z',
      detected_at: '2026-11-25T09:00:03.000Z',
      seconds_to_deliver: 2,
      auth: authResults(),
      spam: null,
      provider_verdict: null,
    },
    {
      email: 'seed2@gmail.com',
      provider: 'gmail',
      category: 'promotions',
      folder: HOSTILE_FOLDER,
      delivered_at: '2026-11-25T09:00:02.000Z',
      detected_at: '2026-11-25T09:00:03.000Z',
      seconds_to_deliver: 2,
      auth: authResults({ dkim: 'fail' }),
      spam: null,
      provider_verdict: null,
    },
    {
      email: 'junk@mail.test',
      provider: 'imap',
      category: 'spam',
      folder: 'Junk',
      delivered_at: '2026-11-25T09:00:01.000Z',
      detected_at: '2026-11-25T09:00:02.000Z',
      seconds_to_deliver: 1,
      auth: authResults({ dkim: 'none', authserv_id: 'mail.test' }),
      spam: {
        filter: 'spamassassin',
        score: 1000.1,
        threshold: 5,
        verdict: 'spam',
        rules: ['GTUBE', '<b>X</b>'],
      },
      provider_verdict: null,
    },
  ],
});
