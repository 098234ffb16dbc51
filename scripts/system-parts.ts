// Owns the system parts the tests need beyond node_modules (the loopback mail stack, a DNS server, Chromium, Java): whether each is
// present, installing the missing ones from Debian's packages when this user may, and otherwise one plain line
// naming the command to run. `npm test` runs `ensure` first, before the typecheck and the suites spend time.
//
//   tsx scripts/system-parts.ts ensure    install what is missing if allowed, else one line and exit 1
//   tsx scripts/system-parts.ts install   the same, for `sudo npm run system-packages -- install`
//   tsx scripts/system-parts.ts status    one line per part: present or missing
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KNOTD_PATH } from './lib/dnsServer';
import { asRoot, currentPrivilege, type Privilege } from './lib/privilege';

export type SystemPart = {
  name: string;
  /** What needs it, for the messages. */
  why: string;
  present: () => boolean;
  aptPackages: string[];
  /** debconf-set-selections lines applied before the install. */
  debconf?: string[];
  /** The tests start it as root (its daemons switch users): a user without root needs passwordless sudo. */
  runsAsRoot?: boolean;
};

const mailStackScript = join(import.meta.dirname, 'mail-stack.sh');

/** Where Debian's chromium package puts the browser; the Chromium test launches exactly this one. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

export const SYSTEM_PARTS: SystemPart[] = [
  {
    name: 'mail stack (Postfix, Dovecot, SpamAssassin)',
    why: 'the tests in test/mailstack read real mailboxes on loopback',
    // The stack script owns the list of binaries it runs; it prints the missing ones.
    present: () => {
      const missing = spawnSync('bash', [mailStackScript, 'missing'], { encoding: 'utf8' });
      return missing.status === 0 && missing.stdout.trim() === '';
    },
    aptPackages: [
      'dovecot-imapd',
      'dovecot-lmtpd',
      'dovecot-sieve',
      'postfix',
      'spamassassin',
      'spamc',
      'spamd',
    ],
    // Without it postfix's postinst asks for a mail setup and writes a system-wide /etc/postfix/main.cf.
    debconf: ['postfix postfix/main_mailer_type select No configuration'],
    runsAsRoot: true,
  },
  {
    name: 'Chromium (for the HTML report test)',
    why: "the check CLI's --html page is opened in a real browser, driven by playwright-core",
    present: () => existsSync(CHROMIUM_PATH),
    aptPackages: ['chromium'],
  },
  {
    name: 'Knot DNS (the loopback DNS server)',
    why: 'the sender audit resolves against a real authoritative DNS server serving the test zones on loopback',
    present: () => existsSync(KNOTD_PATH),
    aptPackages: ['knot'],
  },
  {
    name: 'Java 17 (for AWS DynamoDB Local)',
    why: 'the store and exactly-once suites run on DynamoDB Local, a Java program shipped in amplify-dynamodb-simulator',
    present: () => spawnSync('java', ['-version'], { encoding: 'utf8' }).status === 0,
    aptPackages: ['openjdk-17-jre-headless'],
  },
];

export type Decision =
  | { kind: 'proceed' }
  | { kind: 'install'; parts: SystemPart[]; viaSudo: boolean; line: string }
  | { kind: 'refuse'; line: string };

/** The command a user without the right to install runs instead, as root. */
const asRootCommand = (command: string, privilege: Privilege) =>
  privilege === 'no-sudo' ? `su -c '${command}'` : `sudo ${command}`;

/**
 * What `ensure` does, from which parts are present and how this user may act as root. Pure, so every branch is
 * tested without a machine that lacks the parts.
 */
export const decide = (
  parts: SystemPart[],
  presentNames: Set<string>,
  privilege: Privilege,
  goal: 'test' | 'install' = 'test',
): Decision => {
  const missing = parts.filter((part) => !presentNames.has(part.name));
  const privileged = privilege === 'root' || privilege === 'passwordless-sudo';
  if (privileged) {
    if (missing.length === 0) return { kind: 'proceed' };
    const packages = missing.flatMap((part) => part.aptPackages);
    return {
      kind: 'install',
      parts: missing,
      viaSudo: privilege !== 'root',
      line: `system-parts: installing ${missing.map((part) => part.name).join(', ')} (apt-get install ${packages.join(' ')}), once; this takes a few minutes`,
    };
  }
  // Without root, a part the tests start as root cannot run even when installed: the whole run goes to root.
  const rootAtRun = parts.filter((part) => part.runsAsRoot);
  if (goal === 'test' && rootAtRun.length > 0) {
    const what = missing.length > 0 ? `installs and starts` : 'starts';
    return {
      kind: 'refuse',
      line: `npm test ${what} the ${rootAtRun.map((part) => part.name).join(', ')} as root, and this user is not root and has no passwordless sudo: run ${asRootCommand('npm test', privilege)}`,
    };
  }
  if (missing.length === 0) return { kind: 'proceed' };
  return {
    kind: 'refuse',
    line: `${goal === 'test' ? 'npm test needs' : 'missing:'} ${missing.map((part) => part.name).join(', ')}, not installed, and this user may not install it: run ${asRootCommand('npm run system-packages -- install', privilege)} once`,
  };
};

/** Runs one command to completion with its output kept; on failure the output's tail goes into the error. */
const run = (command: string[], input?: string) => {
  const [file = '', ...args] = command;
  const result = spawnSync(file, args, {
    input,
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    const tail = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-25).join('\n');
    throw new Error(
      `${command.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})\n${tail}`,
    );
  }
};

const install = (parts: SystemPart[], privilege: Privilege) => {
  const debconf = parts.flatMap((part) => part.debconf ?? []);
  if (debconf.length > 0) run(asRoot(['debconf-set-selections'], privilege), `${debconf.join('\n')}\n`);
  // sudo drops the environment, so the frontend goes on the command line.
  const apt = (args: string[]) =>
    asRoot(['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args], privilege);
  run(apt(['update', '-qq']));
  run(apt(['install', '-y', '-q', ...parts.flatMap((part) => part.aptPackages)]));
  const still = parts.filter((part) => !part.present());
  if (still.length > 0)
    throw new Error(`still missing after apt-get: ${still.map((part) => part.name).join(', ')}`);
};

const main = (command: string | undefined) => {
  if (command === 'status') {
    for (const part of SYSTEM_PARTS) console.log(`${part.present() ? 'present' : 'missing'}  ${part.name}`);
    return 0;
  }
  if (command !== 'ensure' && command !== 'install') {
    console.error('usage: tsx scripts/system-parts.ts ensure|install|status');
    return 2;
  }
  const present = new Set(SYSTEM_PARTS.filter((part) => part.present()).map((part) => part.name));
  const privilege = currentPrivilege();
  const decision = decide(SYSTEM_PARTS, present, privilege, command === 'install' ? 'install' : 'test');
  if (decision.kind === 'refuse') {
    console.error(decision.line);
    return 1;
  }
  if (decision.kind === 'install') {
    console.log(decision.line);
    try {
      install(decision.parts, privilege);
    } catch (error) {
      console.error(`system-parts: ${(error as Error).message}`);
      return 1;
    }
  }
  return 0;
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv[2]);
}
