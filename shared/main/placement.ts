// `npm run placement -- …` and `inbox-placement check|compare …` as a process: Ctrl-C aborts the wait, and the exit
// code is the command's (shared/cli/placementCheck.ts, shared/cli/placement/compare.ts).

import { runCompare } from '../cli/placement/compare';
import { EXIT, runCheck } from '../cli/placementCheck';
import { loadCliSettings } from '../config';

export const main = async (argv: string[]): Promise<never> => {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  if (argv[0] === 'compare') {
    const compared = await runCompare(argv.slice(1), {
      settings: loadCliSettings(),
      stdout: (text) => process.stdout.write(`${text}\n`),
      stderr: (text) => process.stderr.write(text),
      signal: controller.signal,
    });
    process.exit(compared);
  }
  const code = await runCheck(argv, {
    settings: loadCliSettings(),
    stdout: (text) => process.stdout.write(`${text}\n`),
    stderr: process.stderr,
    signal: controller.signal,
  }).catch((error: unknown) => {
    process.stderr.write(`check: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.failed;
  });
  process.exit(code);
};

// Run as `tsx shared/main/placement.ts`; bin/inbox-placement.mjs imports main instead.
const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) await main(process.argv.slice(2));
