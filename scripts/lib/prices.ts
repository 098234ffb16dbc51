// Owns the list prices every cost figure of BENCHMARKS.md is computed with: one table, us-east-1, arm64.
/**
 * us-east-1 list prices as AWS published them (DynamoDB after its on-demand price cut of 2024-11-01; Lambda, API
 * Gateway HTTP APIs, CloudWatch, Secrets Manager, KMS and Fargate from their pricing pages); this machine has no
 * network, so they were not re-read on the day of the run. Free tiers are not counted.
 */
export const PRICES = {
  asOf: '2024-11-01 (us-east-1 list prices; not re-checked: no network on the benchmark machine)',
  dynamoWriteRequestUnit: 0.625 / 1e6,
  dynamoReadRequestUnit: 0.125 / 1e6,
  dynamoStorageGbMonth: 0.25,
  /** Continuous backups (PITR), per GB of table a month. */
  dynamoPitrGbMonth: 0.2,
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  /** HTTP API, the first 300 million requests a month. */
  apiGatewayHttpRequest: 1.0 / 1e6,
  cloudWatchDashboardMonth: 3.0,
  /** A standard-resolution alarm, per metric it evaluates, a month. */
  cloudWatchAlarmMetricMonth: 0.1,
  /** A custom metric (name and dimension values), the first 10,000, a month. */
  cloudWatchCustomMetricMonth: 0.3,
  cloudWatchLogsIngestGb: 0.5,
  cloudWatchLogsStorageGbMonth: 0.03,
  secretMonth: 0.4,
  secretApiCall: 0.05 / 1e4,
  fargateArmVcpuHour: 0.03238,
  fargateArmGbHour: 0.00356,
  /**
   * A public IPv4 address, per hour (AWS's charge since 2024-02-01): a Fargate task needs one, or a NAT gateway, to
   * reach the mail providers' IMAP servers; Lambda outside a VPC needs neither.
   */
  publicIpv4Hour: 0.005,
  /** A NAT gateway, per hour, before any data processed: the alternative to a task's public address. */
  natGatewayHour: 0.045,
  /**
   * The customer-managed sealing key, a month ("Each AWS KMS key that you create in KMS costs $1/month", AWS's KMS
   * pricing page, read 2026-12-02 from its stored copy, not live); automatic rotation adds `kmsRotatedKeyMonth` for
   * each backing key it generates, so the first year's figure is the key alone.
   */
  kmsKeyMonth: 1.0,
  /** Each newly generated backing key of a rotated key, a month (same page and date). */
  kmsRotatedKeyMonth: 1.0,
  /** A symmetric-key request (GenerateDataKey, Decrypt): $0.03 per 10,000 (same page and date). */
  kmsRequest: 0.03 / 1e4,
} as const;
