// Owns what `npm run deploy` checks before CloudFormation starts: the Lambda concurrency the stacks will reserve,
// read from their templates, against what the account leaves unreserved today (every other function's reservation
// already taken out) plus what these stacks reserve now, less the 100 AWS keeps unreserved.
import { type CloudFormationClient, GetTemplateCommand } from '@aws-sdk/client-cloudformation';
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

/** A stack CloudFormation does not know yet reserves nothing; any other error stops the deploy. */
const isMissingStack = (error: unknown): boolean =>
  error instanceof Error && /does not exist/.test(error.message);

/** What the deployed stacks of these names reserve today (0 for a stack not deployed yet). */
export const deployedReservationOf = async (
  client: Pick<CloudFormationClient, 'send'>,
  stackNames: readonly string[],
): Promise<number> => {
  const templates = await Promise.all(
    stackNames.map(async (StackName) => {
      try {
        const { TemplateBody } = await client.send(
          new GetTemplateCommand({ StackName, TemplateStage: 'Processed' }),
        );
        return TemplateBody ? (JSON.parse(TemplateBody) as TemplateLike) : {};
      } catch (error) {
        if (isMissingStack(error)) return {};
        throw error;
      }
    }),
  );
  return reservedConcurrencyOf(templates);
};

export interface Reservations {
  /** What the synthesized stacks reserve. */
  reserved: number;
  /** What the same stacks, as deployed, reserve today (given back to the pool when they are updated). */
  deployed: number;
}

/**
 * Undefined when the account leaves room; else the one line saying what to request. Lambda's
 * UnreservedConcurrentExecutions is the quota less every reservation in the account and region (other stacks'
 * functions too), which is where `cdk deploy` deploys the environment-agnostic stacks.
 */
export const concurrencyShortfall = async (
  client: Pick<LambdaClient, 'send'>,
  { reserved, deployed }: Reservations,
  region: string,
): Promise<string | undefined> => {
  const settings = await client.send(new GetAccountSettingsCommand({}));
  const quota = settings.AccountLimit?.ConcurrentExecutions;
  const unreserved = settings.AccountLimit?.UnreservedConcurrentExecutions;
  if (quota === undefined || unreserved === undefined)
    return 'Lambda GetAccountSettings returned no concurrency quota; deploy not started.';
  const left = unreserved + deployed - reserved;
  if (left >= UNRESERVED_MINIMUM) return undefined;
  const needed = quota + UNRESERVED_MINIMUM - left;
  return (
    `Lambda concurrency in ${region}: quota ${quota}, ${unreserved} unreserved (other functions reserve ` +
    `${quota - unreserved - deployed}); these stacks reserve ${reserved} and AWS keeps ${UNRESERVED_MINIMUM} ` +
    `unreserved: request at least ${needed} (Service Quotas, AWS Lambda, "Concurrent executions", ${QUOTA_CODE}) ` +
    'or plan fewer mailboxes (-c mailboxes); deploy not started.'
  );
};
