// Sends ONE message to the given addresses (all in BCC) through the loopback mail stack's Postfix, for trying
// `npm start` by hand: `npm run send-test -- [--gtube] <address> …`.
import { parseArgs } from 'node:util';
import { GTUBE, sendOnce } from '../scripts/lib/mailStack';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { gtube: { type: 'boolean', default: false } },
});
if (positionals.length === 0) {
  process.stderr.write(
    'usage: npm run send-test -- [--gtube] <address> …   (the addresses start returned)\n',
  );
  process.exit(2);
}
sendOnce(positionals, { text: values.gtube ? `A test message.\n${GTUBE}\n` : 'A test message.\n' }).then(
  () =>
    process.stdout.write(`sent one message to ${positionals.length} address(es) through 127.0.0.1:2525\n`),
  (error: unknown) => {
    process.stderr.write(`send failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
