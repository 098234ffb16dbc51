// Lambda run on the monitor schedule: every monitor whose time has come runs once, as npm start's schedule runs it.
import type { Context } from 'aws-lambda';
import { composeMonitorLambda } from '../shared/composition/monitorLambda';

const monitors = composeMonitorLambda();

export const handler = async (_event: unknown, context: Context) =>
  monitors.run(() => context.getRemainingTimeInMillis());
