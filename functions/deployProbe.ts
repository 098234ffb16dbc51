// Lambda CodeDeploy runs before it moves the scanner's alias to a new version (a pre-traffic hook): the new
// version sweeps one account, and the deployment goes on only if that worked.
import middy from '@middy/core';
import { composeDeployProbe, type HookEvent, runDeployProbe } from '../shared/composition/deployProbe';
import { createLambdaLogger, lambdaContext } from '../shared/log';
import { loadDeployProbeConfig } from '../shared/settings/deployHooks';

const config = loadDeployProbeConfig();
const log = createLambdaLogger('deploy-probe', config.LOG_LEVEL);
const parts = composeDeployProbe(config, log);

export const handler = middy(async (event: HookEvent) => runDeployProbe(parts, event))
  .use(lambdaContext(log))
  .use(parts.tracing);
