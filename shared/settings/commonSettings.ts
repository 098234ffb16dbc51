// Owns the settings every function reads alike: the log level, whether X-Ray records, the stage's metrics namespace.
import * as z from 'zod/mini';
import { METRICS_NAMESPACE, METRICS_NAMESPACE_PATTERN } from '../telemetry/metrics';

export const logLevel = z._default(z.enum(['debug', 'info', 'warn', 'error']), 'info');

/** `true` where the deploy turned X-Ray on (-c tracing=true): the Powertools Tracer then records each invocation. */
export const traceEnabled = z._default(z.enum(['true', 'false']), 'false');

/** The stage's metrics namespace, set by the stack (shared/telemetry/metrics.ts); the default stage's when unset. */
export const metricsNamespace = z._default(
  z
    .string()
    .check(z.regex(METRICS_NAMESPACE_PATTERN, { message: 'InboxPlacement or InboxPlacement/<stage>' })),
  METRICS_NAMESPACE,
);
