// Owns how this user may act as root, and the command prefix that does: what installing and starting the mail stack need.
import { spawnSync } from 'node:child_process';

/** How this user may act as root: is root, may `sudo -n`, has a sudo that asks for a password, or has none. */
export type Privilege = 'root' | 'passwordless-sudo' | 'sudo-asks-password' | 'no-sudo';

/** The command prefix that runs a command as root: none for root, `sudo -n` for a user with passwordless sudo. */
export const asRoot = (command: string[], privilege = currentPrivilege()): string[] =>
  privilege === 'root' ? command : ['sudo', '-n', ...command];

let privilegeSeen: Privilege | undefined;

export const currentPrivilege = (): Privilege => {
  if (privilegeSeen) return privilegeSeen;
  if (process.getuid?.() === 0) privilegeSeen = 'root';
  else {
    const probe = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore', timeout: 5000 });
    if (probe.error) privilegeSeen = 'no-sudo';
    else privilegeSeen = probe.status === 0 ? 'passwordless-sudo' : 'sudo-asks-password';
  }
  return privilegeSeen;
};
