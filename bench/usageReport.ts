// Preloaded into npm start by the cost benchmarks (bench/localServer.ts `usageReport`): counts DynamoDB request units,
// loop time and the sender audit's fetches and time through the service's hook, and prints them as one JSON line on
// SIGUSR2 (so a benchmark can take phases apart) and when the service stops.
import { installLocalServiceHook } from '../shared/local/serviceHooks';
import { USAGE_REPORT_PREFIX, UsageMeter } from './usageMeter';

let report: (() => void) | undefined;

installLocalServiceHook({
  started(parts) {
    const meter = new UsageMeter();
    for (const client of parts.clients) meter.attach(client);
    // The sender audit's share: its source fetches, and its audits with their time from the copy's record to stored.
    const audit = { fetches: 0, audits: 0, auditMs: 0 };
    parts.audits.listen({
      fetched: () => {
        audit.fetches++;
      },
      stored: (_checkId, afterMs) => {
        audit.audits++;
        audit.auditMs += afterMs;
      },
    });
    report = () =>
      process.stdout.write(
        `${USAGE_REPORT_PREFIX}${JSON.stringify({ dynamo: meter.report(), scanner: parts.loopUsage(), audit })}\n`,
      );
    process.on('SIGUSR2', report);
  },
  stopped: () => report?.(),
});
