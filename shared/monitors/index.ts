// Owns the monitors feature's only door: what code outside shared/monitors/ may use of it. Inside, modules import
// each other directly; tests may reach any module, as a package's own tests import its modules.
export type { Monitor, MonitorRun, MonitorSecret, ProviderCounts } from './monitor';
export {
  CONTROL_MONITOR,
  isDue,
  nextRunAfter,
  parseMonitorEvery,
  validateMonitorName,
  validateMonitorScope,
} from './monitor';
export type { ProviderJudgement } from './monitorAlarm';
export { isAlarm, windowRunsFor } from './monitorAlarm';
export { checkMonitorMessage, MAX_MESSAGE_BYTES } from './monitorMessage';
export type { MonitorPoint } from './monitorMetrics';
export { judgementPoints, monitorPoints } from './monitorMetrics';
export type { MonitorSender, MonitorStore, MonitorTelemetry } from './monitorsPorts';
export type { MonitorRunOutcome, MonitorRunPath, RunMonitorDeps } from './runMonitor';
export { judgeLatest, runMonitor, runMonitorCheck, sealContextOf } from './runMonitor';
