// The sender audit on real copies: each message of test/support/auditMessages.ts goes through the stack's Postfix
// from its own 127.0.0.x, is read back from Dovecot as the mailbox holds it, and is judged by the audit's own
// functions (copyFactsOf, dnsSubjectsOf, auditDns against Knot on loopback, auditCopy): each case trips exactly the
// findings it is for, the clean one none at all, a refusal is never a listing, and forged headers change nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsServer, startDnsServer } from '../../scripts/lib/dnsServer';
import { AUDIT_SENDING_IPS, TEST_LIST_ZONES } from '../../scripts/lib/testZones';
import { nodeDnsResolver } from '../../shared/adapters/dns/nodeDnsResolver';
import { auditCopy, copyFactsOf } from '../../shared/audit/audit';
import { createCheckDns } from '../../shared/audit/checkDns';
import { auditDns } from '../../shared/audit/dnsResults';
import { dnsSubjectsOf } from '../../shared/audit/dnsSubjects';
import type { AuditReport, CopyFacts } from '../../shared/audit/types';
import { systemClock } from '../../shared/domain/clock';
import { authVerdictOf, verifiedDomainsOf } from '../../shared/scanner/authResults';
import { headerBlockOf } from '../../shared/scanner/headers';
import {
  AUDIT_CASES,
  type AuditCaseName,
  sendAuditMessage,
  UNKNOWN_BY_NATURE,
} from '../support/auditMessages';
import { connectStackAccount, stackAccount } from '../support/mailStack';

const ACCOUNT = 'user002@mail.test';
const ZONES = {
  'spamhaus-zen': TEST_LIST_ZONES.zen,
  'spamhaus-dbl': TEST_LIST_ZONES.dbl,
  spamcop: TEST_LIST_ZONES.spamcop,
  barracuda: TEST_LIST_ZONES.barracuda,
  'surbl-multi': TEST_LIST_ZONES.surbl,
  'uribl-multi': TEST_LIST_ZONES.uribl,
};

/** Every stored copy's source by subject, read once all have arrived (in any folder the stack files them in). */
const storedSources = async (subjects: readonly string[]): Promise<Map<string, Buffer>> => {
  const found = new Map<string, Buffer>();
  const client = await connectStackAccount(stackAccount(ACCOUNT));
  try {
    const folders = (await client.list()).map((folder) => folder.path);
    for (let attempt = 0; attempt < 150 && found.size < subjects.length; attempt++) {
      for (const folder of folders) {
        const lock = await client.getMailboxLock(folder);
        try {
          for await (const message of client.fetch('1:*', { source: true, envelope: true })) {
            const subject = message.envelope?.subject;
            if (subject && subjects.includes(subject) && message.source) found.set(subject, message.source);
          }
        } catch {
          // An empty folder has no 1:*: nothing to read there yet.
        } finally {
          lock.release();
        }
      }
      if (found.size < subjects.length) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await client.logout();
  }
  return found;
};

let dns: DnsServer;
const copies = new Map<AuditCaseName, { facts: CopyFacts; report: AuditReport }>();
const names = Object.keys(AUDIT_CASES) as AuditCaseName[];

beforeAll(async () => {
  dns = await startDnsServer();
  const subjects = new Map(names.map((name) => [name, `audit ${name} ${randomUUID()}`]));
  for (const name of names)
    await sendAuditMessage(AUDIT_CASES[name].message, { to: ACCOUNT, subject: subjects.get(name) ?? '' });
  const sources = await storedSources([...subjects.values()]);
  const resolver = nodeDnsResolver({ servers: [dns.address] });
  for (const name of names) {
    const source = sources.get(subjects.get(name) ?? '');
    if (!source) throw new Error(`the ${name} message never arrived`);
    const auth = authVerdictOf(headerBlockOf(source) ?? '', { ids: ['mail.test'] });
    const verified = verifiedDomainsOf(headerBlockOf(source) ?? '', { ids: ['mail.test'] });
    const facts = await copyFactsOf(source, { provider: 'imap', auth, verified, headersOnly: false });
    if (!facts) throw new Error(`the ${name} copy has no header block`);
    const checkDns = createCheckDns(resolver, systemClock, 2000);
    const results = await auditDns(checkDns, dnsSubjectsOf(facts), { zones: ZONES });
    checkDns.close();
    const report = auditCopy({
      copy: facts,
      dns: results,
      placements: { imap: { inbox: 0, spam: 1, missing: 0, other: 0 } },
    });
    copies.set(name, { facts, report });
  }
}, 120_000);
afterAll(() => dns?.stop());

const copy = (name: AuditCaseName) => {
  const judged = copies.get(name);
  if (!judged) throw new Error(`no audit of ${name}`);
  return judged;
};

describe('the sender audit on copies read back from the mail stack', () => {
  it('names the sending IP from the receiver Received: the IP each message left from', () => {
    for (const name of names)
      expect(copy(name).facts.sendingHost?.ip, name).toBe(AUDIT_CASES[name].message.ip);
  });

  it.each(names)('%s trips exactly the findings it is for', (name) => {
    const { report } = copy(name);
    expect(report.findings.map((finding) => finding.id).sort(), JSON.stringify(report.findings)).toEqual(
      [...AUDIT_CASES[name].findings].sort(),
    );
    for (const id of AUDIT_CASES[name].notChecked)
      expect(report.notChecked.map((entry) => entry.id)).toContain(id);
  });

  it('scores the clean message 10/10 with an empty fix-first list and nothing left unchecked', () => {
    const { report } = copy('clean');
    expect(report.score).toEqual({ value: 10, outOf: 10, deductions: [], partial: false });
    expect(report.fixFirst).toEqual([]);
    expect(report.notChecked).toEqual([]);
    // Every rule item passes but those no message can show: unknown, with why.
    for (const list of report.checklists)
      for (const item of list.items)
        if (UNKNOWN_BY_NATURE.includes(item.id))
          expect([list.ruleSet, item.id, item.judgement, item.detail]).toEqual([
            list.ruleSet,
            item.id,
            'unknown',
            expect.stringMatching(/\S/),
          ]);
        else expect([list.ruleSet, item.id, item.judgement]).toEqual([list.ruleSet, item.id, 'pass']);
  });

  it('ranks each finding into the fix-first list, but an info one (optional, as BIMI)', () => {
    for (const name of names) {
      const { report } = copy(name);
      const ranked = report.fixFirst.map((entry) => entry.findingId);
      for (const finding of report.findings)
        if (finding.severity === 'info') expect(ranked, `${name} ${finding.id}`).not.toContain(finding.id);
        else expect(ranked, `${name} ${finding.id}`).toContain(finding.id);
    }
    expect(copy('dmarcNoneMisaligned').report.findings.find((f) => f.id === 'dns.bimi')?.severity).toBe(
      'info',
    );
  });

  it('tells PBL from SBL, and never reads a refusal as a listing', () => {
    const pbl = copy('pblIp').report.findings[0];
    const sbl = copy('sblIp').report.findings[0];
    expect(pbl?.title).toMatch(/PBL/);
    expect(pbl?.fix).toMatch(/end-user/);
    expect(sbl?.title).toMatch(/SBL/);
    expect(sbl?.severity).toBe('critical');
    const refused = copy('refusedIp').report;
    expect(refused.findings).toEqual([]);
    expect(refused.score.partial).toBe(true);
    const entry = refused.notChecked.find(
      (n) => n.id === `blocklist.spamhaus-zen.${AUDIT_SENDING_IPS.refused}`,
    );
    expect(entry?.why).not.toMatch(/\blisted\b/i);
  });

  it('a forged Received and forged Authentication-Results change neither the sending IP nor a verdict', () => {
    const { facts, report } = copy('forgedHeaders');
    expect(facts.sendingHost).toEqual({
      ip: AUDIT_SENDING_IPS.clean,
      tls: copy('clean').facts.sendingHost?.tls,
    });
    // The receiver found no signature; the forgeries said pass.
    expect(facts.auth?.dkim).toBe('none');
    const ids = report.findings.map((finding) => finding.id);
    expect(ids).toContain('rules.dkim-pass');
    expect(ids.filter((id) => id.startsWith('blocklist.'))).toEqual([]);
    const gmail = report.checklists.find((list) => list.ruleSet === 'Gmail');
    expect(gmail?.items.find((item) => item.id === 'dkim-pass')?.judgement).toBe('fail');
    expect(gmail?.items.find((item) => item.id === 'fcrdns')?.judgement).toBe('pass');
  });
});
