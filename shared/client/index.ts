// Owns the client's public surface: what an API consumer imports to start, read and wait for checks.

export {
  ApiError,
  type ApiErrorKind,
  ApiKeyRejectedError,
  BadResponseError,
  CheckGoneError,
  CheckNotFoundError,
  InboxPlacementError,
  InvalidApiKeyError,
  NetworkError,
  NoAccountsError,
  NoAccountsInScopeError,
  WaitTimeoutError,
} from './apiErrors';
export {
  type ComparedCheck,
  type ComparedRate,
  comparisonProblem,
  type PlacementComparison,
  type RateInterval,
} from './compareResponse';
export {
  type ClientOptions,
  createClient,
  type InboxPlacementClient,
  type RequestOptions,
  type StartOptions,
  type WaitOptions,
} from './createClient';
export { POLL_INTERVAL_MS, type PollIntervalOptions, pollIntervalOf } from './pollInterval';
export {
  type AuthReasons,
  type AuthResult,
  type AuthVerdict,
  type ControlPlacement,
  type PlacementReport,
  type ProviderSummary,
  type ReportAccount,
  type ReportAudit,
  reportProblem,
  type SpamVerdict,
} from './reportResponse';
export {
  type AccountResult,
  type Category,
  CHECK_STATUSES,
  type CheckStatus,
  type CheckView,
  inboxRate,
  type StartedCheck,
} from './resources';
export { verifyWebhook, type WebhookPayload, WebhookVerificationError } from './verifyWebhook';
