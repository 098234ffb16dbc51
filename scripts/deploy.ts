// `npm run deploy [-- -c key=value …]`: synthesizes the app as `cdk` would, checks what the account leaves
// unreserved against what the stacks reserve, and only then runs `cdk deploy --all --strict` with the same arguments.
// CodeDeploy then shifts each function's live alias (docs/operating.md, "Deploys and rollback").
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { createApp } from '../infra/createApp';
import { concurrencyShortfall, deployedReservationOf, reservedConcurrencyOf } from './lib/deployChecks';

/** `-c key=value` and `--context key=value` pairs, as cdk reads them. */
const contextOf = (args: readonly string[]): Record<string, string> => {
  const context: Record<string, string> = {};
  args.forEach((arg, index) => {
    const pair = arg === '-c' || arg === '--context' ? args[index + 1] : undefined;
    const at = pair?.indexOf('=') ?? -1;
    if (pair && at > 0) context[pair.slice(0, at)] = pair.slice(at + 1);
  });
  return context;
};

const main = async (): Promise<number> => {
  const args = process.argv.slice(2);
  // Templates only: no asset is bundled for the count, cdk deploy bundles them itself.
  const cdkJson = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  const context = { ...cdkJson.context, ...contextOf(args), 'aws:cdk:bundling-stacks': [] };
  const { app } = createApp({ context });
  const stacks = app.synth().stacks;
  const reserved = reservedConcurrencyOf(stacks.map((stack) => stack.template));
  const client = new LambdaClient({});
  const region = await client.config.region();
  const deployed = await deployedReservationOf(
    new CloudFormationClient({ region }),
    stacks.map((stack) => stack.stackName),
  );
  const shortfall = await concurrencyShortfall(client, { reserved, deployed }, region);
  if (shortfall) {
    console.error(shortfall);
    return 1;
  }
  const deploy = spawnSync('npx', ['cdk', 'deploy', '--all', '--strict', ...args], { stdio: 'inherit' });
  return deploy.status ?? 1;
};

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`deploy not started: ${error.message}`);
    process.exit(1);
  },
);
