// One casing on the wire: the generic snake_case conversion, nested and in arrays, with each 1.0 camelCase field
// kept beside its twin unchanged; and the report's audit, read through the report use case, served that way and
// accepted by openapi.yaml.
import { describe, expect, it } from 'vitest';
import type { StoredAudit } from '../../shared/audit/usecases/auditRecord';
import { newCheck } from '../../shared/domain/check';
import { snakeCaseOf, withSnakeKeys } from '../../shared/domain/wireKeys';
import { getReport } from '../../shared/usecases/getReport';
import { validateResponse } from '../support/openapi';
import { readyAudit, trippingParts } from '../support/reportAudits';

const CHECK_ID = 'h7vlvp24y7xpdm6puop3';
const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);

/** Every field name in `value`, at any depth. */
const namesIn = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.flatMap(namesIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([name, inner]) => [name, ...namesIn(inner)]);
};

describe('withSnakeKeys', () => {
  it('spells a field name in snake_case', () => {
    expect(snakeCaseOf('fixFirst')).toBe('fix_first');
    expect(snakeCaseOf('auditedAt')).toBe('audited_at');
    expect(snakeCaseOf('state')).toBe('state');
    expect(snakeCaseOf('check_id')).toBe('check_id');
  });

  it('converts nested objects and arrays, and keeps each camelCase field beside with its 1.0 value', () => {
    const internal = {
      someField: 1,
      list: [{ innerName: 'a', plain: 'B' }],
      nested: { deepField: { leafName: 2 } },
    };
    expect(withSnakeKeys(internal)).toEqual({
      some_field: 1,
      someField: 1,
      list: [{ inner_name: 'a', innerName: 'a', plain: 'B' }],
      // Under a snake_case name the 1.0 names stay too, so every 1.0 path still reads: deep_field.leafName.
      nested: { deep_field: { leaf_name: 2, leafName: 2 }, deepField: { leafName: 2 } },
    });
  });

  it('never touches values, strings that look like names included, and leaves scalars alone', () => {
    expect(withSnakeKeys({ why: 'fixFirst is camelCase', list: ['mattersFor', null, 3] })).toEqual({
      why: 'fixFirst is camelCase',
      list: ['mattersFor', null, 3],
    });
    expect(withSnakeKeys('oneValue')).toBe('oneValue');
    expect(withSnakeKeys(null)).toBeNull();
  });

  it('covers a field it was never told about', () => {
    const served = withSnakeKeys({ state: 'ready', addedLaterByAnyone: { withInnerField: true } });
    expect(served).toMatchObject({ added_later_by_anyone: { with_inner_field: true } });
  });
});

describe('the report serves its audit in snake_case', () => {
  const reportWith = async () => {
    const judged = await readyAudit({ parts: trippingParts() });
    if (judged.state !== 'ready') throw new Error('fixture');
    const stored: StoredAudit = {
      state: 'ready',
      claimedAt: T0 + 500,
      auditedAt: T0 + 900,
      copy: judged.copy,
      facts: {} as never,
      dns: undefined,
      findings: [...judged.findings],
      notChecked: [...judged.notChecked],
      checklists: judged.checklists,
    };
    const check = newCheck(CHECK_ID, 'scope-a', ['seed@mail.test'], T0, { 'seed@mail.test': 'gmail' });
    return getReport(
      {
        checks: { get: async () => check } as never,
        clock: { now: () => T0 + 2_000, sleep: async () => {} },
        audits: { get: async () => stored },
      },
      { keyId: 'key-a', scope: 'scope-a' },
      CHECK_ID,
    );
  };

  it('names every audit field in snake_case, the 1.0 camelCase ones beside it, and openapi.yaml accepts it', async () => {
    const report = await reportWith();
    const audit = report.audit;
    if (audit?.state !== 'ready') throw new Error(`audit is ${audit?.state}`);
    expect(audit.audited_at).toBe(new Date(T0 + 900).toISOString());
    expect(audit.fix_first.length).toBeGreaterThan(0);
    expect(audit.fix_first[0]?.finding_id).toBe(audit.fixFirst[0]?.findingId);
    expect(audit.score.out_of).toBe(10);
    expect(audit.not_checked).toEqual(audit.notChecked);
    const deprecated = new Set([
      'auditedAt',
      'fixFirst',
      'notChecked',
      'mattersFor',
      'findingId',
      'outOf',
      'ruleSet',
    ]);
    const names = namesIn(audit);
    expect(names.filter((name) => /[A-Z]/.test(name) && !deprecated.has(name))).toEqual([]);
    for (const name of [
      'audited_at',
      'fix_first',
      'not_checked',
      'out_of',
      'finding_id',
      'matters_for',
      'rule_set',
    ])
      expect(names).toContain(name);
    expect(() =>
      validateResponse('GET', `/api/spam-check/${CHECK_ID}/report`, 200, JSON.parse(JSON.stringify(report))),
    ).not.toThrow();
  });

  it('is refused by openapi.yaml when a snake_case field is missing', async () => {
    const served = JSON.parse(JSON.stringify(await reportWith()));
    delete served.audit.fix_first;
    expect(() => validateResponse('GET', `/api/spam-check/${CHECK_ID}/report`, 200, served)).toThrow(
      /fix_first/,
    );
  });
});
