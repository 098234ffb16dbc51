// Lambda CodeDeploy runs after it moved the scanner's alias to a new version (an after-traffic hook): the new version
// must keep its heartbeat and fail nothing for the bake period, or the deployment rolls back.
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { composeDeployBake, runDeployBake } from '../shared/composition/deployBake';
import type { HookEvent } from '../shared/composition/deployProbe';
import { createLambdaLogger, lambdaContext } from '../shared/log';
import { loadDeployBakeConfig } from '../shared/settings/deployHooks';

/** Time kept to report to CodeDeploy after the bake's last reading. */
const REPORT_MARGIN_MS = 30_000;

const config = loadDeployBakeConfig();
const log = createLambdaLogger('deploy-bake', config.LOG_LEVEL);
const parts = composeDeployBake(config, log);

export const handler = middy(async (event: HookEvent, context: Context) =>
  runDeployBake(parts, event, Date.now() + context.getRemainingTimeInMillis() - REPORT_MARGIN_MS),
)
  .use(lambdaContext(log))
  .use(parts.tracing);
