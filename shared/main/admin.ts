// `npm run admin -- …` as a process: runs the operator's command (shared/cli/adminCommands.ts) and exits with its code; a
// wrong command line exits 2, any other failure 1, each with one line on stderr.
import { runAdmin } from '../cli/adminCommands';
import { InvalidInputError } from '../domain/errors';

runAdmin(process.argv.slice(2), (text) => process.stdout.write(`${text}\n`)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const known =
      error instanceof InvalidInputError || (error instanceof Error && error.name === 'TypeError');
    process.stderr.write(`admin: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(known ? 2 : 1);
  },
);
