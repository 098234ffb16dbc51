// Owns the IAM policy an operator needs to run the admin CLI against a deployed stack: the actions its code sends
// (infra/operatorActions.json, written by `npx tsx scripts/operator-policy.ts --write` from the source), each on
// the resources of its service in the data stack, as a managed policy to attach to the operator's user or role.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { SECONDARY_INDEXES } from '../shared/adapters/dynamo/table';
import { SEAL_PURPOSES } from '../shared/domain/sealer';
import { sealingStatements } from './constructs/sealingKey';
import { PROJECT_ROOT } from './paths';

/** The checked-in list; test/infra/operatorPolicy.test.ts fails when the CLI's code sends an action it lacks. */
const OPERATOR_ACTIONS_FILE = join(PROJECT_ROOT, 'infra/operatorActions.json');

export const operatorActions = (): string[] =>
  (JSON.parse(readFileSync(OPERATOR_ACTIONS_FILE, 'utf8')) as { actions: string[] }).actions;

/**
 * The sealing key, apart from the checked-in list: the Encryption SDK sends its calls, not the CLI's own code. Every
 * purpose both ways: `accounts add`, `monitors create` and `reseal` seal; `accounts test` and `reseal` open.
 */
const OPERATOR_SEALING = { open: SEAL_PURPOSES, seal: SEAL_PURPOSES };

export const addOperatorPolicy = (
  scope: Construct,
  table: ITable,
  secret: ISecret,
  sealingKey: IKey,
): ManagedPolicy => {
  const resourcesOf: Record<string, string[]> = {
    dynamodb: [table.tableArn, ...SECONDARY_INDEXES.map((index) => `${table.tableArn}/index/${index.name}`)],
    secretsmanager: [secret.secretArn],
    // The data stack's own outputs: where `--stack`/`--stage` find the table and the secret.
    cloudformation: [Stack.of(scope).stackId],
  };
  const byService = new Map<string, string[]>();
  for (const action of operatorActions()) {
    const service = action.split(':')[0] ?? '';
    if (!resourcesOf[service]) {
      throw new Error(
        `the operator policy names no resource for ${action}: add its service in infra/operatorPolicy.ts`,
      );
    }
    byService.set(service, [...(byService.get(service) ?? []), action]);
  }
  const policy = new ManagedPolicy(scope, 'OperatorPolicy', {
    description: 'What `npm run admin` sends to this stage: API keys, accounts and their credentials',
    statements: [
      ...[...byService].map(
        ([service, actions]) => new PolicyStatement({ actions, resources: resourcesOf[service] }),
      ),
      ...sealingStatements(sealingKey.keyArn, OPERATOR_SEALING),
    ],
  });
  new CfnOutput(scope, 'OperatorPolicyArn', {
    value: policy.managedPolicyArn,
    description: 'Attach to the operators who run npm run admin against this stage',
  });
  return policy;
};
