// Lambda CodeDeploy runs before it moves the scanner's alias to a new version (a pre-traffic hook): the new
// version sweeps one account, and the deployment goes on only if that worked.
import { composeDeployProbe, type HookEvent, runDeployProbe } from '../shared/composition/deployProbe';
import { loadDeployProbeConfig } from '../shared/config';
import { createLambdaLogger } from '../shared/log';

const config = loadDeployProbeConfig();
const parts = composeDeployProbe(config, createLambdaLogger('deploy-probe', config.LOG_LEVEL));

export const handler = async (event: HookEvent) => runDeployProbe(parts, event);
