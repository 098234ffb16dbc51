// A Sieve rule for one account of the loopback mail stack, as a test sets it: files what a test matches into Junk.
// Accounts without a script of the stack's own read ~/.dovecot.sieve (scripts/mail-stack/dovecot.conf), which Dovecot
// compiles on delivery.
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAILSTACK_DIR } from './mailStack';

/** The stack's mail user (nobody:nogroup), who owns every account's home. */
const MAIL_USER = 65534;

/** Sets the rule; the function it returns removes it, so no other test file sees it. */
export const fileIntoJunk = (email: string, test: string): (() => void) => {
  const home = join(MAILSTACK_DIR, 'mail/mail.test', email.split('@')[0] ?? '');
  mkdirSync(home, { recursive: true });
  const script = join(home, '.dovecot.sieve');
  writeFileSync(
    script,
    `require ["fileinto", "mailbox"];\nif ${test} {\n  fileinto :create "Junk";\n  stop;\n}\n`,
  );
  chownSync(home, MAIL_USER, MAIL_USER);
  chownSync(script, MAIL_USER, MAIL_USER);
  return () => rmSync(script, { force: true });
};
