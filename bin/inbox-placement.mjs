#!/usr/bin/env node
// Owns the `inbox-placement` command (package.json "bin"): dispatches a subcommand to its TypeScript entry point
// through tsx's ESM loader, so nothing has to be compiled first.
import { register } from 'tsx/esm/api';

const USAGE = `usage: inbox-placement <command> [options]

commands:
  check     start a check, send ONE message to its addresses, wait, and print where it landed
            (inbox-placement check --help for its options)
  compare   compare two checks A B: each provider's rates with their 95% intervals and Fisher's exact test
            (inbox-placement compare --help for its options)`;

const [command, ...args] = process.argv.slice(2);
if (command === 'check' || command === 'compare') {
  register();
  const { main } = await import('../shared/main/placement.ts');
  await main(command === 'compare' ? [command, ...args] : args);
} else if (command === 'help' || command === '--help' || command === '-h') {
  process.stdout.write(`${USAGE}\n`);
} else {
  process.stderr.write(`${command ? `inbox-placement: unknown command "${command}"\n\n` : ''}${USAGE}\n`);
  process.exitCode = 2;
}
