// Owns what `npm run deploy` checks before CloudFormation starts: the Lambda concurrency the stacks reserve,
// read from their templates, against the account's quota less the 100 AWS keeps unreserved.
import { GetAccountSettingsCommand, type LambdaClient } from '@aws-sdk/client-lambda';

/** AWS refuses a reservation that would leave fewer than this unreserved in the account and region. */
export const UNRESERVED_MINIMUM = 100;

/** Service Quotas' code of Lambda's "Concurrent executions". */
const QUOTA_CODE = 'L-B99A9384';

interface TemplateLike {
  Resources?: Record<string, { Type?: string; Properties?: { ReservedConcurrentExecutions?: unknown } }>;
}

/** What every function in the templates reserves, summed. */
export const reservedConcurrencyOf = (templates: readonly TemplateLike[]): number =>
  templates
    .flatMap((template) => Object.values(template.Resources ?? {}))
    .filter((resource) => resource.Type === 'AWS::Lambda::Function')
    .reduce((sum, resource) => {
      const reserved = resource.Properties?.ReservedConcurrentExecutions;
      return sum + (typeof reserved === 'number' ? reserved : 0);
    }, 0);

/**
 * Undefined when the account's quota leaves room; else the one line saying what to request. The quota is the
 * account's in the region the client names, which is where `cdk deploy` deploys the environment-agnostic stacks.
 */
export const concurrencyShortfall = async (
  client: Pick<LambdaClient, 'send'>,
  reserved: number,
  region: string,
): Promise<string | undefined> => {
  const settings = await client.send(new GetAccountSettingsCommand({}));
  const quota = settings.AccountLimit?.ConcurrentExecutions;
  if (quota === undefined)
    return 'Lambda GetAccountSettings returned no concurrency quota; deploy not started.';
  const needed = reserved + UNRESERVED_MINIMUM;
  if (quota >= needed) return undefined;
  return (
    `Lambda concurrency quota in ${region} is ${quota}; these stacks reserve ${reserved} and AWS keeps ` +
    `${UNRESERVED_MINIMUM} unreserved: request at least ${needed} (Service Quotas, AWS Lambda, ` +
    `"Concurrent executions", ${QUOTA_CODE}) or deploy with -c scannerConcurrency lower; deploy not started.`
  );
};
