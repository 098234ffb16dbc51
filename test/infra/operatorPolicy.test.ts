// The operator's policy for the admin CLI: the actions the CLI's code sends (read from the source by
// scripts/lib/sdkCalls.ts) are exactly the checked-in list, and the synthesized managed policy grants exactly those,
// on resources the data stack has.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { operatorActions } from '../../infra/operatorPolicy';
import { ADMIN_CLI, actionsOf, sdkCallsFrom } from '../../scripts/lib/sdkCalls';
import {
  propOf,
  resourcesOf,
  type Statement,
  type SynthesizedApp,
  actionsOf as statementActions,
  synthApp,
} from './synthApp';

const ROOT = join(import.meta.dirname, '../..');

let built: SynthesizedApp;
beforeAll(() => {
  built = synthApp();
});

const policyStatements = (): Statement[] => {
  const policies = Object.values(resourcesOf(built.dataTemplate, 'AWS::IAM::ManagedPolicy'));
  expect(policies).toHaveLength(1);
  return propOf<{ Statement: Statement[] }>(policies[0], 'PolicyDocument').Statement;
};

/** Every logical id an intrinsic in `value` refers to (Ref, Fn::GetAtt). */
const referencesIn = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.flatMap(referencesIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    if (key === 'Ref' && typeof inner === 'string') return [inner];
    if (key === 'Fn::GetAtt' && Array.isArray(inner)) return [String(inner[0])];
    return referencesIn(inner);
  });
};

describe('the operator policy', () => {
  it('lists exactly the actions the admin CLI sends (run scripts/operator-policy.ts --write after a change)', () => {
    const sent = actionsOf(sdkCallsFrom(ROOT, ADMIN_CLI.entry, ADMIN_CLI.skip));
    expect(sent.length).toBeGreaterThan(5);
    expect(operatorActions()).toEqual(sent);
  });

  it('finds a command and a paginator in a module, by the package they come from (so the check can fail)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-calls-'));
    writeFileSync(
      join(dir, 'entry.ts'),
      "import { CreateTableCommand } from '@aws-sdk/client-dynamodb';\nimport './other';\n" +
        'export const create = () => new CreateTableCommand({});\n',
    );
    writeFileSync(
      join(dir, 'other.ts'),
      "import { paginateQuery, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';\n" +
        "import { ListQueuesCommand } from '@aws-sdk/client-sqs';\n" +
        'new TransactWriteCommand({}); paginateQuery({}, {}); new ListQueuesCommand({}); new OtherCommand();\n',
    );
    expect(actionsOf(sdkCallsFrom(dir, 'entry.ts'))).toEqual([
      'dynamodb:CreateTable',
      'dynamodb:Query',
      'dynamodb:TransactWriteItems',
      'sqs:ListQueues',
    ]);
    expect(actionsOf(sdkCallsFrom(dir, 'entry.ts', ['other.ts']))).toEqual(['dynamodb:CreateTable']);
  });

  it('grants exactly those actions in the data stack, the sealing key beside them, and no wildcard', () => {
    const granted = policyStatements().flatMap(statementActions).sort();
    // The Encryption SDK sends the key's calls, not the CLI's own code: their conditions are sealingKey.test.ts's.
    expect(granted.filter((action) => !action.startsWith('kms:'))).toEqual(operatorActions());
    expect([...new Set(granted.filter((action) => action.startsWith('kms:')))]).toEqual([
      'kms:Decrypt',
      'kms:GenerateDataKey',
    ]);
    expect(JSON.stringify(policyStatements())).not.toMatch(/"\*"|:\*"/);
  });

  it('names only resources the data stack has (its table and indexes, its secret, its key, itself)', () => {
    const logicalIds = new Set(Object.keys(resourcesOf(built.dataTemplate)));
    for (const statement of policyStatements()) {
      const references = referencesIn(statement.Resource);
      expect(references.length, JSON.stringify(statement.Resource)).toBeGreaterThan(0);
      for (const id of references) expect(id === 'AWS::StackId' || logicalIds.has(id), id).toBe(true);
    }
    const onTable = policyStatements().find((s) => statementActions(s).includes('dynamodb:GetItem'));
    expect(JSON.stringify(onTable?.Resource)).toContain('/index/');
  });

  it('outputs the policy for the operator', () => {
    built.dataTemplate.hasOutput('OperatorPolicyArn', {});
  });
});
