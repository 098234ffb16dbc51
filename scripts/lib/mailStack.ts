// The loopback mail stack (Postfix, Dovecot, SpamAssassin from scripts/mail-stack.sh) as tests, the bench and the
// scripts use it: its accounts, sending one message through Postfix, and appending old mail over IMAP.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ImapFlow, type ImapFlowOptions } from 'imapflow';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { type AccountEntry, accountEntrySchema } from '../../shared/adapters/credentials/accountEntrySchema';
import { asRoot } from './privilege';

// Short and outside the repository: Dovecot's socket paths must stay under 108 bytes wherever CI clones to.
export const MAILSTACK_DIR = process.env.MAILSTACK_DIR ?? '/tmp/inbox-placement-mailstack';
const EXTRA_USERS = 12;
export const SMTP = { host: '127.0.0.1', port: 2525 };
/** Postfix's submission port (scripts/mail-stack.sh SUBMISSION_PORT): SMTP AUTH with an account's password only. */
export const SUBMISSION = { host: '127.0.0.1', port: 2587 };
/** Dovecot's implicit-TLS listener (scripts/mail-stack.sh TLS_HOST, IMAPS_PORT): the same accounts over TLS. */
export const IMAPS = { host: '127.0.0.2', port: 1993 };
/** The test CA that signed the IMAPS certificate at the stack's start: what a client must trust to reach IMAPS. */
export const stackCaFile = () => join(MAILSTACK_DIR, 'etc/tls/ca.pem');
/** Dovecot's LMTP listener (scripts/mail-stack.sh LMTP_PORT), where Postfix hands mail over. */
export const LMTP = { host: '127.0.0.1', port: 2424 };

/** The category each fixed account of the stack reports for one message carrying GTUBE (see docs/testing.md's table). */
export const GTUBE_CATEGORIES = {
  'archive@mail.test': 'unknown',
  'inbox@mail.test': 'primary',
  'junk@mail.test': 'spam',
  'promo@mail.test': 'promotions',
  'trash@mail.test': 'trash',
} as const;

/** The official GTUBE string: SpamAssassin scores any message carrying it as spam. */
export const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';

const script = join(import.meta.dirname, '../mail-stack.sh');

/**
 * `extraUsers` beyond the fixed accounts: the tests use EXTRA_USERS, the scale benchmarks a few hundred. The
 * daemons switch users, so a user who is not root starts them through passwordless sudo (`npm test` checked
 * first that it works). A failure is one error carrying the script's own words, not its buffers.
 */
export const mailStack = (
  command: 'start' | 'stop' | 'dovecot-stop' | 'dovecot-start',
  extraUsers = EXTRA_USERS,
) => {
  // sudo drops the environment, so the settings go on the command line.
  const settings = [`MAILSTACK_DIR=${MAILSTACK_DIR}`, `MAILSTACK_EXTRA_USERS=${extraUsers}`];
  const [file = '', ...args] = asRoot(['env', ...settings, 'bash', script, command]);
  const result = spawnSync(file, args, { encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) {
    const why = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
    throw new Error(`mail-stack.sh ${command} failed (${why}):\n${(result.stderr || result.stdout).trim()}`);
  }
  return result.stdout;
};

export const stackAccounts = (): AccountEntry[] => {
  const raw = JSON.parse(readFileSync(join(MAILSTACK_DIR, 'accounts.json'), 'utf8')) as unknown[];
  return raw.map((entry) => accountEntrySchema.parse(entry));
};

export const stackAccount = (email: string): AccountEntry => {
  const account = stackAccounts().find((candidate) => candidate.email === email);
  if (!account) throw new Error(`the mail stack has no account ${email}`);
  return account;
};

const smtpOptions: SMTPTransport.Options = { ...SMTP, secure: false, ignoreTLS: true };
const transport = nodemailer.createTransport(smtpOptions);

/** Sends ONE message with every address in BCC, as the spec asks a client to; resolves when Postfix accepts it. */
export const sendOnce = async (
  addresses: string[],
  options: { subject?: string; text?: string; to?: boolean } = {},
) => {
  const info = await transport.sendMail({
    from: 'Sender <sender@example.com>',
    ...(options.to ? { to: addresses } : { to: 'undisclosed-recipients:;', bcc: addresses }),
    subject: options.subject ?? 'Inbox placement test',
    text: options.text ?? 'Hello from the test suite.',
  });
  if (info.rejected.length > 0) throw new Error(`Postfix rejected ${info.rejected.join(', ')}`);
  return Date.now();
};

const lmtpTransport = nodemailer.createTransport({ ...LMTP, lmtp: true, secure: false, ignoreTLS: true });

/**
 * Hands one copy to Dovecot's LMTP for each address, each in a transaction of its own as Postfix does (Dovecot writes
 * Delivered-To only for a single recipient), all at once; resolves with the time each delivery returned.
 */
export const deliverLmtp = async (
  addresses: string[],
  options: { subject?: string; text?: string } = {},
): Promise<Map<string, number>> => {
  const delivered = await Promise.all(
    addresses.map(async (address) => {
      const info = await lmtpTransport.sendMail({
        from: 'Sender <sender@example.com>',
        to: 'undisclosed-recipients:;',
        envelope: { from: 'sender@example.com', to: [address] },
        subject: options.subject ?? 'Inbox placement test',
        text: options.text ?? 'Hello from the test suite.',
      });
      if (info.rejected.length > 0) throw new Error(`Dovecot LMTP rejected ${address}`);
      return [address, Date.now()] as const;
    }),
  );
  return new Map(delivered);
};

/** A logged-in IMAP client of a password account of the stack; a dropped connection is the caller's to notice. */
export const connectStackAccount = async (
  account: AccountEntry,
  options: Partial<ImapFlowOptions> = {},
): Promise<ImapFlow> => {
  if (!('pass' in account.auth)) throw new Error(`${account.email} is not a password account`);
  const client = new ImapFlow({
    ...account.imap,
    auth: { user: account.auth.user, pass: account.auth.pass },
    logger: false,
    ...options,
  });
  client.on('error', () => undefined);
  await client.connect();
  return client;
};

/** Puts `count` untagged messages dated `date` into a folder, as years of old mail would be. */
export const appendOld = async (account: AccountEntry, count: number, date: Date, folder = 'INBOX') => {
  const client = await connectStackAccount(account);
  try {
    for (let index = 0; index < count; index++) {
      const raw = `From: old@example.com\r\nTo: ${account.email}\r\nSubject: old ${index}\r\nDate: ${date.toUTCString()}\r\n\r\nold mail\r\n`;
      await client.append(folder, raw, ['\\Seen'], date);
    }
  } finally {
    await client.logout();
  }
};
