// Lambda run on the calibration schedule: a control message to every seed of every scope, their placements kept.
import { composeCalibrationLambda } from '../shared/composition/calibrationLambda';

const calibration = composeCalibrationLambda();

export const handler = async () => calibration.run();
