// Owns the audit feature's only door: what code outside shared/audit/ may use of it. Inside, modules
// import each other directly; tests may reach any module, as a package's own tests import its modules.
export { judgeCopy } from './audit';
export type { AuditDatapoint } from './auditMetrics';
export { auditDatapoints, ruleItemsByProvider } from './auditMetrics';
export type { CheckDns } from './checkDns';
export { createCheckDns } from './checkDns';
export { contentFactsOf, MAX_SOURCE_BYTES } from './contentFacts';
export { readDkimKey } from './dkimKey';
export { tagList } from './dnsJudgement';
export type { DnsAnswer, DnsRecordTypes, DnsResolverPort, DnsType } from './dnsPort';
export type { DnsAuditOptions } from './dnsResults';
export { headerFactsOf } from './headerFacts';
export { scanHtml } from './htmlScan';
export { sendingHostOf } from './sendingHost';
export { spfSyntaxError } from './spfSyntax';
export type { ContentFacts, CopyFacts } from './types';
export type { AuditListener, CopySource } from './usecases/auditCheck';
export { CheckAuditor } from './usecases/auditCheck';
export type { AuditStore, StoredAudit } from './usecases/auditRecord';
export { reportAuditOf } from './usecases/auditRecord';
export { auditTelemetry } from './usecases/auditTelemetry';
