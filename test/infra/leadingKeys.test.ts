// Least privilege by key, as CloudFormation will see it: every table statement of every function names the kinds of
// item it may touch (dynamodb:LeadingKeys), the API never reads credentials, and neither start nor the scanner can
// write an API key or an account's registration.
import { beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_HEALTH_ATTRIBUTES } from '../../infra/tableKeys';
import { KEY_PREFIXES } from '../../shared/adapters/dynamo/keys';
import {
  actionsOf,
  logicalIdOf,
  roleOfFunction,
  type Statement,
  type SynthesizedApp,
  statementsOfRole,
  synthApp,
} from './synthApp';

let built: SynthesizedApp;
beforeAll(() => {
  built = synthApp();
});

type Conditioned = Statement & { Condition?: Record<string, Record<string, string[]>> };

/** The statements of a function's role on the table itself (not its indexes, stream or anything else). */
const tableStatements = (fn: 'start' | 'get' | 'fallback' | 'scanner'): Conditioned[] => {
  const { serviceTemplate, service, data } = built;
  const table = `{"Fn::GetAtt":["${logicalIdOf(data.table)}","Arn"]}`;
  const tableRef = `FnGetAtt${logicalIdOf(data.table)}Arn`;
  return statementsOfRole(
    serviceTemplate,
    roleOfFunction(serviceTemplate, logicalIdOf(service.functions[fn])),
  )
    .filter((s) => actionsOf(s).some((action) => action.startsWith('dynamodb:')))
    .filter((s) => {
      const resource = JSON.stringify(s.Resource);
      return (resource === table || resource.includes(tableRef)) && !resource.includes('/index/');
    }) as Conditioned[];
};

const leadingKeys = (s: Conditioned): string[] =>
  s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? [];
const WRITES = /^dynamodb:(Put|Update|Delete|BatchWrite|TransactWrite)/;
const READS = /^dynamodb:(GetItem|Query|Scan|BatchGetItem|TransactGetItems)$/;
const prefixOf = (kind: keyof typeof KEY_PREFIXES) => `${KEY_PREFIXES[kind]}*`;

describe('table access by partition key', () => {
  it('conditions every table statement of every function on the kinds of item it may touch', () => {
    for (const fn of ['start', 'get', 'scanner'] as const) {
      const statements = tableStatements(fn);
      expect(statements.length, fn).toBeGreaterThan(0);
      for (const s of statements) {
        expect(leadingKeys(s).length, `${fn}: ${JSON.stringify(s)}`).toBeGreaterThan(0);
        // A Scan names no partition key, so no LeadingKeys condition can limit it: none on the table.
        expect(actionsOf(s)).not.toContain('dynamodb:Scan');
      }
    }
    expect(tableStatements('fallback')).toEqual([]);
  });

  it('lets neither API function read credentials', () => {
    for (const fn of ['start', 'get'] as const) {
      for (const s of tableStatements(fn)) expect(leadingKeys(s)).not.toContain(prefixOf('credentials'));
    }
  });

  it('lets neither start nor the scanner write an API key, and start no account or credentials', () => {
    const writesOf = (fn: 'start' | 'scanner') =>
      tableStatements(fn).filter((s) => actionsOf(s).some((action) => WRITES.test(action)));
    for (const s of writesOf('start')) {
      for (const kind of ['apiKey', 'account', 'credentials'] as const) {
        expect(leadingKeys(s)).not.toContain(prefixOf(kind));
      }
    }
    for (const s of writesOf('scanner')) expect(leadingKeys(s)).not.toContain(prefixOf('apiKey'));
    expect(writesOf('start').length).toBeGreaterThan(0);
  });

  it("lets the scanner change only an account's health: UpdateItem naming only the health attributes", () => {
    const onAccounts = tableStatements('scanner').filter((s) => leadingKeys(s).includes(prefixOf('account')));
    expect(onAccounts).toHaveLength(1);
    const [health] = onAccounts;
    expect(actionsOf(health as Statement)).toEqual(['dynamodb:UpdateItem']);
    expect(leadingKeys(health as Conditioned)).toEqual([prefixOf('account')]);
    expect(health?.Condition?.['ForAllValues:StringEquals']?.['dynamodb:Attributes']).toEqual([
      ...ACCOUNT_HEALTH_ATTRIBUTES,
    ]);
    // Registration (provider, scope, active) is not among them.
    for (const field of ['provider', 'scope', 'active', 'gsi1pk']) {
      expect(ACCOUNT_HEALTH_ATTRIBUTES as readonly string[]).not.toContain(field);
    }
  });

  it('keeps reads and writes in separate statements, so a read grant never becomes a write grant', () => {
    for (const fn of ['start', 'get', 'scanner'] as const) {
      for (const s of tableStatements(fn)) {
        const actions = actionsOf(s);
        expect(actions.every((a) => READS.test(a)) || actions.every((a) => WRITES.test(a)), fn).toBe(true);
      }
    }
  });
});
