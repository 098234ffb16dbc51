// Owns the calibration feature's only door: what code outside shared/calibration/ may use of it. Inside, modules
// import each other directly; tests may reach any module, as a package's own tests import its modules.
export type { ControlMail } from './domain/controlMessage';
export type { ProviderReading } from './domain/controlReading';
export { lookFirst } from './domain/controlReading';
export type { CalibrateDeps, ControlSender, ScopeCalibration } from './usecases/calibrate';
export { calibrate, calibrateScope } from './usecases/calibrate';
export type { SeedContext } from './usecases/seedContext';
export { seedContextOf } from './usecases/seedContext';
