// `npx tsx scripts/operator-policy.ts [--write]`: lists the AWS actions the admin CLI's code sends (every module it
// reaches, less the local stand-ins) and compares them with infra/operatorActions.json; --write rewrites that file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_CLI, actionsOf, sdkCallsFrom } from './lib/sdkCalls';

const ROOT = join(import.meta.dirname, '..');
const FILE = join(ROOT, 'infra/operatorActions.json');

const calls = sdkCallsFrom(ROOT, ADMIN_CLI.entry, ADMIN_CLI.skip);
const actions = actionsOf(calls);
for (const action of actions) {
  const where = [...new Set(calls.filter((call) => call.action === action).map((call) => call.file))];
  process.stdout.write(`${action}\t${where.join(', ')}\n`);
}
if (process.argv.includes('--write')) {
  writeFileSync(FILE, `${JSON.stringify({ actions }, null, 2)}\n`);
  process.stdout.write('wrote infra/operatorActions.json\n');
} else {
  const listed = (JSON.parse(readFileSync(FILE, 'utf8')) as { actions: string[] }).actions;
  const missing = actions.filter((action) => !listed.includes(action));
  const extra = listed.filter((action) => !actions.includes(action));
  if (missing.length + extra.length > 0) {
    process.stderr.write(
      `infra/operatorActions.json is stale: missing ${missing.join(', ') || 'none'}; ` +
        `not sent ${extra.join(', ') || 'none'}; run with --write\n`,
    );
    process.exit(1);
  }
}
