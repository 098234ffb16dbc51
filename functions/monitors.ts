// Lambda run on the monitor schedule: every monitor whose time has come runs once, as npm start's schedule runs it.
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { composeMonitorLambda } from '../shared/composition/monitorLambda';
import { lambdaContext } from '../shared/log';

const monitors = composeMonitorLambda();

export const handler = middy(async (_event: unknown, context: Context) =>
  monitors.run(() => context.getRemainingTimeInMillis()),
)
  .use(lambdaContext(monitors.log))
  .use(monitors.tracing);
