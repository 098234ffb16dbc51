// Sender audits as the report gives them, for the check CLI's tests: each made by the real audit (auditCopy over the
// facts of a real message source), never written by hand, then wrapped in the report's `audit` states.
import { auditCopy, copyFactsOf } from '../../shared/audit/audit';
import type { DnsResults, ProviderPlacement } from '../../shared/audit/types';
import type { PlacementReport } from '../../shared/client';
import type { ReportAudit } from '../../shared/domain/auditReport';
import type { AuthVerdict } from '../../shared/domain/receivingVerdicts';
import { withSnakeKeys } from '../../shared/domain/wireKeys';
import {
  cleanDns,
  cleanHeaders,
  cleanParts,
  type MessageParts,
  passingAuth,
  passingVerified,
  sourceOf,
} from './auditMessage';
import { sampleReport } from './placementReport';

const AUDITED_AT = '2026-11-25T09:00:03.000Z';

interface Audited {
  parts?: MessageParts;
  auth?: AuthVerdict | null;
  dns?: DnsResults | undefined;
  placements?: Record<string, ProviderPlacement>;
  provider?: string;
}

/** A ready audit of one copy, as the service would store and judge it. */
export const readyAudit = async (c: Audited = {}): Promise<ReportAudit> => {
  const source = sourceOf(c.parts ?? cleanParts());
  const provider = c.provider ?? 'gmail';
  const copy = await copyFactsOf(source, {
    provider,
    auth: c.auth === undefined ? passingAuth() : c.auth,
    verified: c.auth === null ? null : passingVerified(),
    headersOnly: false,
  });
  if (!copy) throw new Error('no header block');
  const report = auditCopy({
    copy,
    dns: 'dns' in c ? c.dns : cleanDns(),
    placements: c.placements ?? { gmail: { inbox: 1, spam: 1, missing: 0, other: 0 } },
  });
  return {
    state: 'ready',
    auditedAt: AUDITED_AT,
    copy: { provider, fetched: 'source', bytes: source.length },
    ...report,
  };
};

/** A message that trips three rules: no one-click unsubscribe, no TLS on the hop, no Message-ID. */
export const trippingParts = (): MessageParts => ({
  ...cleanParts(),
  received: [
    'Received: from mail.shop.example.com ([192.0.2.7]) by mx.google.com with ESMTP id q; Mon, 1 Jan 2024',
  ],
  headers: cleanHeaders().filter(
    (line) => !line.startsWith('List-Unsubscribe-Post') && !line.startsWith('Message-ID'),
  ),
});

const TIMED_OUT = { state: 'unknown', why: 'lookups timed out' } as const;

/** The DNS side when every lookup ran out of its budget. */
export const timedOutDns = (): DnsResults => ({
  findings: [],
  notChecked: [{ id: 'dns.spf', why: 'DNS unknown: lookups timed out' }],
  dmarcPublished: TIMED_OUT,
  dmarcAligned: TIMED_OUT,
  fcrdns: TIMED_OUT,
});

/**
 * The case that once read "Every check passed": the only copy went to Trash at a receiver that wrote no
 * Authentication-Results and no spam verdict, and the audit's DNS lookups timed out.
 */
export const unjudgedReport = async (): Promise<PlacementReport> => {
  const report = sampleReport();
  const [first] = report.accounts;
  if (!first) throw new Error('fixture');
  report.accounts = [
    {
      ...first,
      email: 'seed@mail.test',
      provider: 'imap',
      category: 'trash',
      folder: 'Trash',
      auth: null,
      spam: null,
    },
  ];
  report.audit = withSnakeKeys(
    await readyAudit({
      provider: 'imap',
      auth: null,
      dns: timedOutDns(),
      placements: { imap: { inbox: 0, spam: 0, missing: 0, other: 1 } },
    }),
  );
  return report;
};
