// Owns the calibration feature's only door: what code outside shared/calibration/ may use of it. Inside, modules
// import each other directly; tests may reach any module, as a package's own tests import its modules. The core's
// domain and use cases use ./domain/index.ts instead (why: there).
export type { ControlMail } from './domain/controlMessage';
export type { ProviderReading } from './domain/controlReading';
export { lookFirst } from './domain/controlReading';
export type { ControlCounts, ControlRun } from './domain/controlRun';
export { CALIBRATION_EVERY_RULE, parseCalibrationEvery } from './domain/index';
export type { SeedCalibration, SeedPlacement } from './domain/seedHealth';
export { DEFAULT_EVERY_MS, latestCalibrations, retentionMs, seedRecordOf } from './domain/seedHealth';
export type { SeedMarks } from './domain/seedMarks';
export type { CalibrateDeps, ControlSender, ScopeCalibration } from './usecases/calibrate';
export { calibrate, calibrateScope } from './usecases/calibrate';
export type { SeedContext } from './usecases/seedContext';
export { seedContextOf } from './usecases/seedContext';
