// Owns the calibration domain's door for the core: what a check, the ports, the settings and starting a check name of
// calibration. It is apart from ../index.ts because that door also exports the use cases, which start checks
// through the core: the core importing it would be an import cycle and an arrow up a layer.
export { CALIBRATION_EVERY_RULE, parseCalibrationEvery } from './calibrationEvery';
export type { ControlRun } from './controlRun';
export type { SeedCalibration } from './seedHealth';
export type { SeedMarks } from './seedMarks';
export { seedMarksOf } from './seedMarks';
