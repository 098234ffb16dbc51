// The sender audit's DNS settings: read once, loopback servers only, the budget bounded, the DQS key never echoed.
import { describe, expect, it } from 'vitest';
import { DEFAULT_DNS_BUDGET_MS, loadAuditDnsSettings } from '../../shared/settings/auditSettings';

describe('audit DNS settings', () => {
  it("defaults to the system's resolver and a two-second budget", () => {
    expect(loadAuditDnsSettings({})).toEqual({
      budgetMs: DEFAULT_DNS_BUDGET_MS,
      servers: undefined,
      spamhausDqsKey: undefined,
    });
    expect(DEFAULT_DNS_BUDGET_MS).toBe(2000);
  });

  it('takes loopback servers with or without a port, and no other', () => {
    expect(loadAuditDnsSettings({ DNS_SERVERS: '127.0.0.1:5300, [::1]:53,::1' }).servers).toEqual([
      '127.0.0.1:5300',
      '[::1]:53',
      '::1',
    ]);
    for (const bad of ['10.0.0.2', '169.254.169.253', '8.8.8.8:53', '127.0.0.1:70000', 'localhost', ''])
      expect(() => loadAuditDnsSettings({ DNS_SERVERS: bad })).toThrow(/DNS_SERVERS/);
  });

  it('bounds the budget', () => {
    expect(loadAuditDnsSettings({ DNS_BUDGET_MS: '500' }).budgetMs).toBe(500);
    expect(() => loadAuditDnsSettings({ DNS_BUDGET_MS: '50' })).toThrow(/DNS_BUDGET_MS/);
    expect(() => loadAuditDnsSettings({ DNS_BUDGET_MS: '60000' })).toThrow(/DNS_BUDGET_MS/);
  });

  it('checks the DQS key without ever repeating it', () => {
    const key = 'abcdefghijklmnopqrstuvwxyz';
    expect(loadAuditDnsSettings({ SPAMHAUS_DQS_KEY: key }).spamhausDqsKey).toBe(key);
    const wrong = 'SECRET-not-a-key-0123456789';
    expect(() => loadAuditDnsSettings({ SPAMHAUS_DQS_KEY: wrong })).toThrow(/SPAMHAUS_DQS_KEY/);
    try {
      loadAuditDnsSettings({ SPAMHAUS_DQS_KEY: wrong });
    } catch (error) {
      expect((error as Error).message).not.toContain('SECRET');
    }
  });
});
