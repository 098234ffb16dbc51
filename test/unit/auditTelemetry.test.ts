// Each stored audit tells the dashboard once, for every provider its check had seeds at (read from the check), from
// the stored facts alone; a check gone or a failed read emits nothing and never throws; the auditor hands the facts
// over once per check and a closing loop waits for it.
import { describe, expect, it } from 'vitest';
import { auditCopy, copyFactsOf } from '../../shared/audit/audit';
import type { AuditDatapoint } from '../../shared/audit/auditMetrics';
import { gmailRules } from '../../shared/audit/rules/gmail';
import { microsoftRules } from '../../shared/audit/rules/microsoft';
import { ITEM_TEXT } from '../../shared/audit/rules/ruleItems';
import type { RuleSet } from '../../shared/audit/rules/ruleSet';
import { yahooRules } from '../../shared/audit/rules/yahoo';
import type { CopyFacts, DnsResults } from '../../shared/audit/types';
import { type AuditListener, CheckAuditor } from '../../shared/audit/usecases/auditCheck';
import { auditTelemetry, type JudgedAudit } from '../../shared/audit/usecases/auditTelemetry';
import { type Check, newCheck } from '../../shared/domain/check';
import { systemClock } from '../../shared/domain/clock';
import { createLogger } from '../../shared/log';
import type { MailboxCredentials } from '../../shared/scanner/scannerPorts';
import {
  cleanDns,
  cleanHeaders,
  cleanParts,
  passingAuth,
  passingVerified,
  sourceOf,
} from '../support/auditMessage';

/** A set's items that a message can show: those no message can (the spam rate…) are never counted. */
const judgedItems = (set: RuleSet) => set.items.filter((id) => ITEM_TEXT[id].outOfReach === undefined);

const CHECK_ID = 'abcdefghijklmnopqrst';

const factsOf = async (headers: string[] = cleanHeaders()): Promise<CopyFacts> => {
  const facts = await copyFactsOf(sourceOf({ ...cleanParts(), headers }), {
    provider: 'gmail',
    auth: passingAuth(),
    verified: passingVerified(),
    headersOnly: false,
  });
  if (!facts) throw new Error('no header block');
  return facts;
};

/** The audit as the auditor judges it from its copy's facts (placements do not matter to the telemetry). */
const judged = ({ facts, dns }: { facts: CopyFacts; dns: DnsResults | undefined }): JudgedAudit => ({
  provider: facts.provider,
  ...auditCopy({ copy: facts, dns, placements: {} }),
});

const run = async (
  check: Check | undefined | Error,
  audited: { facts: CopyFacts; dns: DnsResults | undefined },
) => {
  const emitted: AuditDatapoint[][] = [];
  const warnings: string[] = [];
  const log = createLogger('test', 'warn', (line) => warnings.push(line));
  const step = auditTelemetry({
    checks: {
      get: async (id) => {
        if (check instanceof Error) throw check;
        return id === CHECK_ID ? check : undefined;
      },
    },
    emit: (points) => emitted.push([...points]),
    log,
  });
  await step(CHECK_ID, judged(audited));
  return { emitted, warnings };
};

const seeded = (providers: Record<string, string>) =>
  newCheck(CHECK_ID, 'default', Object.keys(providers), 0, providers);

describe('audit telemetry', () => {
  it("emits once, for each provider of the check's seeds, whichever copy was audited", async () => {
    const check = seeded({
      'a@t.test': 'gmail',
      'b@t.test': 'gmail',
      'c@t.test': 'outlook',
      'd@t.test': 'icloud',
    });
    const { emitted } = await run(check, { facts: await factsOf(), dns: cleanDns() });
    expect(emitted).toHaveLength(1);
    const [points = []] = emitted;
    expect(points.filter((p) => p.metric === 'auditListed').map((p) => p.provider)).toEqual([
      'gmail',
      'outlook',
      'icloud',
    ]);
    expect(points.filter((p) => p.metric === 'auditRuleFailed')).toHaveLength(
      judgedItems(gmailRules).length + judgedItems(microsoftRules).length,
    );
    expect(points.every((p) => p.value === 0)).toBe(true);
  });

  it('a rule the stored facts fail counts 1 (no one-click unsubscribe) at the providers that require it', async () => {
    const facts = await factsOf(cleanHeaders().filter((line) => !line.startsWith('List-Unsubscribe-Post')));
    const { emitted } = await run(seeded({ 'a@t.test': 'yahoo', 'b@t.test': 'aol' }), {
      facts,
      dns: cleanDns(),
    });
    const failing = (emitted[0] ?? []).filter((p) => p.value === 1);
    expect(failing).toEqual([
      { metric: 'auditRuleFailed', provider: 'yahoo', rule: 'one-click-unsubscribe', value: 1 },
      { metric: 'auditRuleFailed', provider: 'aol', rule: 'one-click-unsubscribe', value: 1 },
    ]);
    expect(judgedItems(yahooRules)).toContain('one-click-unsubscribe');
  });

  it("a check that names no providers counts the audited copy's provider", async () => {
    const { emitted } = await run(newCheck(CHECK_ID, 'default', ['a@t.test'], 0), {
      facts: await factsOf(),
      dns: undefined,
    });
    expect(new Set((emitted[0] ?? []).map((p) => p.provider))).toEqual(new Set(['gmail']));
  });

  it('a check gone emits nothing; a failed read is logged without its message, and never throws', async () => {
    const facts = await factsOf();
    expect((await run(undefined, { facts, dns: cleanDns() })).emitted).toEqual([]);
    const failed = await run(new Error('secret table name in the message'), { facts, dns: cleanDns() });
    expect(failed.emitted).toEqual([]);
    expect(failed.warnings).toHaveLength(1);
    expect(failed.warnings[0]).toContain('sender audit metrics not emitted');
    expect(failed.warnings[0]).not.toContain('secret');
  });
});

describe("the auditor's audited event", () => {
  const auditorWith = (audited: NonNullable<AuditListener['audited']>) => {
    const claims = new Set<string>();
    const auditor = new CheckAuditor({
      store: {
        claim: async (checkId) => !claims.has(checkId) && Boolean(claims.add(checkId)),
        complete: async () => true,
        get: async () => undefined,
      },
      source: { sourceOf: async () => ({ source: sourceOf(cleanParts()), size: undefined }) },
      credentials: { get: async (email) => ({ email }) as unknown as MailboxCredentials },
      dns: {
        openCheckDns: () => ({
          lookup: async () => ({ kind: 'none', reason: 'nxdomain' }),
          close: () => undefined,
        }),
        options: {},
      },
      clock: systemClock,
      log: createLogger('test', 'error', () => undefined),
    });
    auditor.listen({ audited });
    return auditor;
  };

  it('hands the stored facts over once per check, and a closing loop waits for it', async () => {
    const seen: { checkId: string; provider: string }[] = [];
    const auditor = auditorWith(async (checkId, { facts }) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen.push({ checkId, provider: facts.provider });
    });
    for (let copy = 0; copy < 20; copy++)
      auditor.copyRecorded({
        checkId: CHECK_ID,
        email: `seed${copy}@t.test`,
        provider: copy === 0 ? 'yahoo' : 'gmail',
        folder: 'INBOX',
        uid: copy + 1,
        headers: Buffer.from(cleanHeaders().join('\r\n')),
        auth: passingAuth(),
        recordedAt: Date.now(),
      });
    await auditor.settled(5000);
    expect(seen).toEqual([{ checkId: CHECK_ID, provider: 'yahoo' }]);
  });
});
