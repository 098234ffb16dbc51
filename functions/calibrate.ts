// Lambda run on the calibration schedule: a control message to every seed of every scope, their placements kept.
import middy from '@middy/core';
import { composeCalibrationLambda } from '../shared/composition/calibrationLambda';
import { lambdaContext } from '../shared/log';

const calibration = composeCalibrationLambda();

export const handler = middy(async () => calibration.run())
  .use(lambdaContext(calibration.log))
  .use(calibration.tracing);
