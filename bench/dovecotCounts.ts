// Owns what the bench reads of Dovecot's own command counts (`doveadm stats dump`, the stack's imap_command metric):
// the commands each user sent after login, on any wire, TLS included, where a proxy in front of the port sees
// only ciphertext.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { MAILSTACK_DIR } from '../scripts/lib/mailStack';

const PREFIX = 'imap_command_';

/** Commands finished per user since Dovecot started (LOGIN is the login process's, not counted). */
export const commandsPerUser = (): Map<string, number> => {
  const output = execFileSync(
    'doveadm',
    ['-c', join(MAILSTACK_DIR, 'etc/dovecot/dovecot.conf'), 'stats', 'dump'],
    { stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 16 * 1024 * 1024 },
  ).toString();
  const counts = new Map<string, number>();
  for (const line of output.split('\n')) {
    const [metric = '', field, count] = line.split('\t');
    if (!metric.startsWith(PREFIX) || field !== 'duration') continue;
    counts.set(metric.slice(PREFIX.length), Number(count));
  }
  return counts;
};
