// The loopback mail stack as tests use it: scripts/lib/mailStack.ts (shared with the bench and the scripts), and
// what only tests need.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAILSTACK_DIR } from '../../scripts/lib/mailStack';
import { asRoot } from '../../scripts/lib/privilege';
import type { AccountEntry } from '../../shared/adapters/credentials/accountEntrySchema';

export * from '../../scripts/lib/mailStack';

/**
 * Puts `count` untagged messages into an account's INBOX in one `doveadm import` from an mbox file, as a backlog
 * that built up while nothing read the mailbox: one process for all of them, where an APPEND each takes minutes.
 */
export const importBacklog = (account: AccountEntry, count: number) => {
  const source = mkdtempSync(join(tmpdir(), 'backlog-'));
  try {
    const lines: string[] = [];
    for (let index = 0; index < count; index++) {
      lines.push(
        'From bulk@example.com Thu Jan  1 00:00:00 2026',
        `From: Bulk <bulk@example.com>`,
        `To: ${account.email}`,
        `Subject: backlog ${index}`,
        `Message-ID: <${index}.backlog@example.com>`,
        '',
        `backlog message ${index}`,
        '',
      );
    }
    writeFileSync(join(source, 'inbox'), lines.join('\n'), { mode: 0o644 });
    // Dovecot reads it as the mail user; its index of the source stays in memory, so nothing is written there.
    chmodSync(source, 0o755);
    const config = join(MAILSTACK_DIR, 'etc/dovecot/dovecot.conf');
    const location = `mbox:${source}:INBOX=${join(source, 'inbox')}:INDEX=MEMORY`;
    const [file = '', ...args] = asRoot([
      'doveadm',
      '-c',
      config,
      'import',
      '-u',
      account.email,
      location,
      '',
      'mailbox',
      'INBOX',
    ]);
    const result = spawnSync(file, args, { encoding: 'utf8', timeout: 120_000 });
    if (result.status !== 0)
      throw new Error(`doveadm import failed: ${(result.stderr || result.stdout).trim()}`);
  } finally {
    rmSync(source, { recursive: true, force: true });
  }
};
