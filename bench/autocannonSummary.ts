// Owns what a benchmark keeps of one autocannon run: the request count and rate, the latency percentiles, and
// every way a request went wrong (errors, timeouts, non-2xx, by status).
import type { Result } from 'autocannon';
import { round } from './localServer';

export const summariseRun = (result: Result) => ({
  requests: result.requests.total,
  reqPerSec: round(result.requests.total / result.duration, 0),
  latencyMs: {
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    mean: round(result.latency.mean),
  },
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx,
  statusCodes: Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([code, stats]) => [code, stats.count]),
  ),
});
