// Owns deciding which folders of a mailbox to read and which category a message found in each one means.
import type { DetectedCategory } from '../domain/categories';

export interface FolderInfo {
  path: string;
  /** The SPECIAL-USE attribute the server reported, e.g. `\Junk`. */
  specialUse?: string | undefined;
  flags: readonly string[];
}

export interface ScanFolder {
  path: string;
  category: DetectedCategory;
}

const JUNK_NAMES = ['junk', 'spam', 'bulk', 'bulk mail', 'junk email', '[gmail]/spam'];
const TRASH_NAMES = ['trash', 'deleted messages', 'deleted items', '[gmail]/trash'];
/** Folders that only hold copies (Gmail's All Mail, Important, Starred) or outgoing mail: never a placement. */
const SKIPPED_USES = new Set(['\\all', '\\flagged', '\\important', '\\sent', '\\drafts']);
const SKIPPED_FLAGS = new Set(['\\noselect', '\\nonexistent']);
const FLAG_USES = new Set([...SKIPPED_USES, '\\junk', '\\trash']);
/**
 * Folders no delivered copy can be in: outgoing mail, and the non-mail folders Exchange and iCloud list over
 * IMAP (calendar, contacts, notes…). Reading them costs round trips and can never find a placement.
 */
const NOT_MAIL_IN = new Set([
  'sent',
  'drafts',
  'draft',
  'sent items',
  'sent messages',
  'sent mail',
  'outbox',
  'notes',
  'calendar',
  'contacts',
  'tasks',
  'journal',
  'conversation history',
  'sync issues',
  'rss feeds',
]);

// Read in this order, so that when one copy shows up in two folders (a Gmail label next to INBOX), the
// placement that counts is the first in this list.
const PRIORITY: DetectedCategory[] = [
  'primary',
  'updates',
  'promotions',
  'social',
  'forums',
  'spam',
  'trash',
  'unknown',
];

const lower = (value: string) => value.toLowerCase();

const categoryOf = (
  folder: FolderInfo,
  overrides: Readonly<Record<string, DetectedCategory>>,
): DetectedCategory | undefined => {
  const override = Object.entries(overrides).find(([path]) => lower(path) === lower(folder.path));
  if (override) return override[1];
  // imapflow reports only RFC 6154's attributes as specialUse, and only when the server advertises SPECIAL-USE;
  // Gmail's \Important, and Exchange's and Yahoo's \Junk and \Trash sent unadvertised, stay among the flags.
  const use =
    lower(folder.specialUse ?? folder.flags.find((flag) => FLAG_USES.has(lower(flag))) ?? '') || undefined;
  if (lower(folder.path) === 'inbox') return 'primary';
  if (use === '\\junk') return 'spam';
  if (use === '\\trash') return 'trash';
  if (use && SKIPPED_USES.has(use)) return undefined;
  if (JUNK_NAMES.includes(lower(folder.path))) return 'spam';
  if (TRASH_NAMES.includes(lower(folder.path))) return 'trash';
  if (NOT_MAIL_IN.has(lower(folder.path))) return undefined;
  return 'unknown';
};

/**
 * The folders to read, each with its category: INBOX, junk and trash (SPECIAL-USE first, then known names),
 * folders the account's config names, and every other selectable folder as `unknown`.
 */
export const scanFolders = (
  folders: readonly FolderInfo[],
  overrides: Readonly<Record<string, DetectedCategory>> = {},
): ScanFolder[] => {
  const chosen: ScanFolder[] = [];
  for (const folder of folders) {
    if (folder.flags.some((flag) => SKIPPED_FLAGS.has(lower(flag)))) continue;
    const category = categoryOf(folder, overrides);
    if (category) chosen.push({ path: folder.path, category });
  }
  return chosen.sort((a, b) => PRIORITY.indexOf(a.category) - PRIORITY.indexOf(b.category));
};
