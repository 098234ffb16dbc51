// `npm run deploy`'s concurrency quota check counts what the synthesized stacks reserve (the quota's arithmetic is
// test/unit/deployQuota.test.ts).
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../infra/settings';
import { reservedConcurrencyOf } from '../../scripts/lib/deployChecks';
import { synthApp } from './synthApp';

describe('the concurrency quota check', () => {
  it('counts what the synthesized stacks reserve, following -c mailboxes and -c scannerConcurrency', () => {
    const templatesOf = (context: Record<string, unknown>) => {
      const { dataTemplate, serviceTemplate } = synthApp(context);
      return [dataTemplate.toJSON(), serviceTemplate.toJSON()];
    };
    // The scanner's, and 1 for the monitor schedule (one tick at a time).
    expect(reservedConcurrencyOf(templatesOf({}))).toBe(DEFAULT_SETTINGS.scannerConcurrency + 1);
    expect(reservedConcurrencyOf(templatesOf({ mailboxes: '5000' }))).toBe(95 + 1);
    expect(reservedConcurrencyOf(templatesOf({ scannerConcurrency: '25' }))).toBe(25 + 1);
  });
});
