// Owns the words of the placement report: provider names as people know them, each account's auth and spam columns,
// and one plain sentence for each check that failed. Shared by the terminal table and the HTML page.
import type { PlacementReport, ReportAccount } from '../../client';

const PROVIDER_NAMES: Record<string, string> = {
  gmail: 'Gmail',
  outlook: 'Outlook.com',
  microsoft365: 'Microsoft 365',
  yahoo: 'Yahoo',
  aol: 'AOL',
  icloud: 'iCloud',
  imap: 'IMAP',
};

/** Report values come from headers a sender may have shaped: no control character reaches a terminal or a page. */
export const printable = (value: string, max = 200): string => {
  const clean = value.replace(/\p{Cc}|[\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu, '?');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
};

export const providerName = (provider: string): string => PROVIDER_NAMES[provider] ?? printable(provider, 40);

const METHODS = ['spf', 'dkim', 'dmarc'] as const;
type Method = (typeof METHODS)[number];
const METHOD_NAMES: Record<Method, string> = { spf: 'SPF', dkim: 'DKIM', dmarc: 'DMARC' };

/** What each result that is not a pass means, in words; a result not listed here is named as it is. */
const MEANING: Record<Method, Record<string, string>> = {
  spf: {
    fail: "the sending server's address is not allowed by the sender domain's SPF record",
    softfail: "the sender domain's SPF record says the sending server is probably not allowed",
    neutral: "the sender domain's SPF record makes no statement about the sending server",
    none: 'the sender domain publishes no SPF record',
    permerror: "the sender domain's SPF record could not be read (permanent error)",
    temperror: "the sender domain's SPF record could not be looked up (temporary error)",
  },
  dkim: {
    fail: 'the signature did not verify against the published key',
    neutral: 'the signature could not be checked (for example the body hash did not verify)',
    none: 'the message carried no DKIM signature',
    policy: "the signature was not acceptable under the receiver's policy",
    permerror: 'the signature or its key record is broken (permanent error)',
    temperror: 'the signing key could not be looked up (temporary error)',
  },
  dmarc: {
    fail: 'neither SPF nor DKIM passed for the From domain',
    none: 'the From domain publishes no DMARC record',
    permerror: "the From domain's DMARC record could not be read (permanent error)",
    temperror: "the From domain's DMARC record could not be looked up (temporary error)",
  },
};

/** An account's result of one method, as printed: `pass`, `fail`, … or `-` when the provider said nothing. */
export const authCell = (account: ReportAccount, method: Method | 'arc'): string => {
  const result = account.auth?.[method];
  return result ? printable(result, 20) : '-';
};

const number = (value: number | null) => (value === null || !Number.isFinite(value) ? '?' : String(value));

/** `spam 7.2/5 (SpamAssassin)`, `ham 1/5 (SpamAssassin)`, or `-`. */
export const spamCell = (account: ReportAccount): string => {
  const spam = account.spam;
  if (!spam) return '-';
  const verdict = spam.verdict ?? 'unknown';
  const score =
    spam.score === null && spam.threshold === null ? '' : ` ${number(spam.score)}/${number(spam.threshold)}`;
  return `${verdict}${score} (${filterName(spam.filter)})`;
};

const filterName = (filter: string) =>
  filter === 'spamassassin' ? 'SpamAssassin' : filter === 'microsoft' ? 'Microsoft' : printable(filter, 40);

const MAX_RULES = 8;

/** One sentence per failing check of every account, in the report's order. */
export const failureSentences = (report: PlacementReport): string[] =>
  report.accounts.flatMap((account) => {
    const where = `${providerName(account.provider)} (${printable(account.email, 120)})`;
    const sentences: string[] = [];
    for (const method of METHODS) {
      const result = account.auth?.[method]?.toLowerCase();
      if (!result || result === 'pass') continue;
      // The receiving side's own words first ("body hash did not verify"); ours only where it gave none.
      const reason = account.auth?.reasons[method]?.replace(/[\s.]+$/, '');
      const meaning = reason
        ? printable(reason, 120)
        : (MEANING[method][result] ?? `the receiving side reported ${method}=${printable(result, 20)}`);
      const verb = result === 'none' ? 'missing' : 'failed';
      sentences.push(`${METHOD_NAMES[method]} ${verb} at ${where}: ${meaning}.`);
    }
    const spam = account.spam;
    if (spam?.verdict === 'spam') {
      const rules = spam.rules.slice(0, MAX_RULES).map((rule) => printable(rule, 60));
      const more = spam.rules.length > MAX_RULES ? ` and ${spam.rules.length - MAX_RULES} more` : '';
      const score =
        spam.score === null ? '' : ` with score ${number(spam.score)} (threshold ${number(spam.threshold)})`;
      sentences.push(
        `${filterName(spam.filter)} at ${where} judged it spam${score}${rules.length > 0 ? `; rules: ${rules.join(', ')}${more}` : ''}.`,
      );
    }
    return sentences;
  });

export const percentOf = (part: number, whole: number): string =>
  whole > 0 ? `${Math.round((part / whole) * 1000) / 10}%` : '-';
