// Choosing the folders of a mailbox to read and the category each one means, on real providers' folder lists.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DetectedCategory } from '../../shared/domain/categories';
import { type FolderInfo, type ScanFolder, scanFolders } from '../../shared/scanner/folders';

const RUNS = Number.parseInt(process.env.PROPERTY_RUNS ?? '', 10) || 300;

const folder = (path: string, specialUse?: string, ...flags: string[]): FolderInfo => ({
  path,
  specialUse,
  flags: specialUse ? [...flags, specialUse] : flags,
});

// Within one category the order is not part of the contract, so folders are compared as a map and the
// order only by category.
const byPath = (folders: readonly ScanFolder[]) =>
  Object.fromEntries(folders.map((f) => [f.path, f.category]));
const categories = (folders: readonly ScanFolder[]) => folders.map((f) => f.category);

const DOVECOT = [
  folder('INBOX', undefined, '\\HasNoChildren'),
  folder('Drafts', '\\Drafts', '\\HasNoChildren'),
  folder('Sent', '\\Sent', '\\HasNoChildren'),
  folder('Junk', '\\Junk', '\\HasNoChildren'),
  folder('Trash', '\\Trash', '\\HasNoChildren'),
  folder('Promotions', undefined, '\\HasNoChildren'),
  folder('Archive', '\\Archive', '\\HasNoChildren'),
];

// As imapflow reports it: INBOX gets `\Inbox`, and `\Important` (RFC 8457, not RFC 6154) stays a plain flag.
const GMAIL = [
  folder('INBOX', '\\Inbox', '\\HasNoChildren'),
  folder('[Gmail]', undefined, '\\HasChildren', '\\Noselect'),
  folder('[Gmail]/All Mail', '\\All', '\\HasNoChildren'),
  folder('[Gmail]/Drafts', '\\Drafts', '\\HasNoChildren'),
  folder('[Gmail]/Important', undefined, '\\HasNoChildren', '\\Important'),
  folder('[Gmail]/Sent Mail', '\\Sent', '\\HasNoChildren'),
  folder('[Gmail]/Spam', '\\Junk', '\\HasNoChildren'),
  folder('[Gmail]/Starred', '\\Flagged', '\\HasNoChildren'),
  folder('[Gmail]/Trash', '\\Trash', '\\HasNoChildren'),
  folder('Receipts', undefined, '\\HasNoChildren'),
];

// Outlook, Yahoo and iCloud as seen without SPECIAL-USE: only the names tell the folders apart.
const OUTLOOK = [
  'Inbox',
  'Drafts',
  'Sent Items',
  'Deleted Items',
  'Junk Email',
  'Archive',
  'Outbox',
  'Notes',
].map((path) => folder(path));
const YAHOO = ['Inbox', 'Bulk', 'Trash', 'Sent', 'Archive'].map((path) => folder(path));
const ICLOUD = ['INBOX', 'Drafts', 'Sent Messages', 'Junk', 'Deleted Messages', 'Archive'].map((path) =>
  folder(path),
);

describe('scanFolders on providers’ folder lists', () => {
  it('reads Dovecot’s INBOX, Junk, Trash and the other folders, not Drafts or Sent', () => {
    const chosen = scanFolders(DOVECOT);
    expect(byPath(chosen)).toEqual({
      INBOX: 'primary',
      Junk: 'spam',
      Trash: 'trash',
      Promotions: 'unknown',
      Archive: 'unknown',
    });
    expect(categories(chosen)).toEqual(['primary', 'spam', 'trash', 'unknown', 'unknown']);
  });

  it.each([
    [
      'Gmail’s INBOX, Spam, Trash and user labels, never the copies in All Mail, Important or Starred',
      GMAIL,
      { INBOX: 'primary', '[Gmail]/Spam': 'spam', '[Gmail]/Trash': 'trash', Receipts: 'unknown' },
    ],
    [
      'Outlook by name: Inbox in any case, Junk Email, Deleted Items, not Sent Items, Drafts, Outbox or Notes',
      OUTLOOK,
      { Inbox: 'primary', 'Junk Email': 'spam', 'Deleted Items': 'trash', Archive: 'unknown' },
    ],
  ])('reads %s', (_what, folders, expected) => {
    const chosen = scanFolders(folders);
    expect(byPath(chosen)).toEqual(expected);
    expect(categories(chosen)).toEqual(['primary', 'spam', 'trash', 'unknown']);
  });

  it('follows SPECIAL-USE whatever the localised name, as on a German Gmail', () => {
    const chosen = scanFolders([
      folder('INBOX'),
      folder('[Google Mail]', undefined, '\\Noselect'),
      folder('[Google Mail]/Alle Nachrichten', '\\All'),
      folder('[Google Mail]/Gesendet', '\\Sent'),
      folder('[Google Mail]/Papierkorb', '\\Trash'),
      folder('[Google Mail]/Spam', '\\Junk'),
      folder('[Google Mail]/Entwürfe', '\\Drafts'),
    ]);
    expect(byPath(chosen)).toEqual({
      INBOX: 'primary',
      '[Google Mail]/Spam': 'spam',
      '[Google Mail]/Papierkorb': 'trash',
    });
  });

  it('reads Yahoo’s Bulk as spam', () => {
    expect(byPath(scanFolders(YAHOO))).toEqual({
      Inbox: 'primary',
      Bulk: 'spam',
      Trash: 'trash',
      Archive: 'unknown',
    });
  });

  it('reads iCloud’s Junk and Deleted Messages, not Sent Messages', () => {
    expect(byPath(scanFolders(ICLOUD))).toEqual({
      INBOX: 'primary',
      Junk: 'spam',
      'Deleted Messages': 'trash',
      Archive: 'unknown',
    });
  });
});

describe('scanFolders rules', () => {
  it('knows junk and trash names case-insensitively', () => {
    const spam = ['JUNK', 'spam', 'Bulk Mail', 'junk email', '[GMAIL]/SPAM', 'bulk'];
    const trash = ['TRASH', 'deleted messages', 'Deleted ITEMS', '[gmail]/trash'];
    const chosen = byPath(scanFolders([...spam, ...trash].map((path) => folder(path))));
    for (const path of spam) expect(chosen[path], path).toBe('spam');
    for (const path of trash) expect(chosen[path], path).toBe('trash');
  });

  it('treats INBOX case-insensitively, but not its children', () => {
    // IMAP reserves INBOX in any case; INBOX/Receipts is an ordinary folder under it.
    expect(
      byPath(scanFolders(['inbox', 'INBOX/Receipts', 'INBOX.Newsletters'].map((path) => folder(path)))),
    ).toEqual({ inbox: 'primary', 'INBOX/Receipts': 'unknown', 'INBOX.Newsletters': 'unknown' });
  });

  it('lets SPECIAL-USE win over a misleading name, in any case', () => {
    const chosen = scanFolders([
      folder('Spam', '\\Trash'),
      folder('Trash', '\\JUNK'),
      folder('Junk', '\\sent'),
      folder('Notes', '\\junk'),
    ]);
    expect(byPath(chosen)).toEqual({ Spam: 'trash', Trash: 'spam', Notes: 'spam' });
  });

  it('skips outgoing folders by name when the server reports no SPECIAL-USE, in any case', () => {
    const outgoing = ['Sent', 'DRAFTS', 'sent items', 'Sent Messages', 'OUTBOX'];
    expect(scanFolders(outgoing.map((path) => folder(path)))).toEqual([]);
  });

  it('skips copy-only and outgoing folders whose attribute is only among the flags', () => {
    const chosen = scanFolders([
      folder('Important', undefined, '\\Important'),
      folder('Everything', undefined, '\\HasNoChildren', '\\all'),
      folder('Starred', undefined, '\\Flagged'),
      folder('Outgoing', undefined, '\\Sent'),
      folder('Unsent', undefined, '\\DRAFTS'),
      folder('Receipts', undefined, '\\HasNoChildren', '\\Marked'),
    ]);
    expect(chosen).toEqual([{ path: 'Receipts', category: 'unknown' }]);
  });

  it('skips folders that cannot be selected, whatever their name or SPECIAL-USE', () => {
    const chosen = scanFolders([
      folder('INBOX'),
      folder('[Gmail]', undefined, '\\HasChildren', '\\Noselect'),
      folder('Junk', '\\Junk', '\\NonExistent'),
      folder('Trash', undefined, '\\NOSELECT'),
      folder('Old', undefined, '\\nonexistent'),
    ]);
    expect(chosen).toEqual([{ path: 'INBOX', category: 'primary' }]);
  });

  it('reads nothing from an empty list', () => {
    expect(scanFolders([])).toEqual([]);
  });
});

describe('scanFolders overrides', () => {
  it('map a folder to the category the account config names', () => {
    const chosen = scanFolders(DOVECOT, { Promotions: 'promotions' });
    expect(byPath(chosen)).toMatchObject({ Promotions: 'promotions', Archive: 'unknown' });
    expect(categories(chosen)).toEqual(['primary', 'promotions', 'spam', 'trash', 'unknown']);
  });

  it('match the folder name case-insensitively', () => {
    expect(byPath(scanFolders(DOVECOT, { PROMOTIONS: 'promotions', archive: 'updates' }))).toMatchObject({
      Promotions: 'promotions',
      Archive: 'updates',
    });
  });

  it('win over SPECIAL-USE, known names, INBOX and the skip rules', () => {
    const chosen = scanFolders(GMAIL, {
      '[Gmail]/Spam': 'promotions',
      '[gmail]/TRASH': 'unknown',
      inbox: 'updates',
      '[Gmail]/Important': 'social',
      '[gmail]/all mail': 'forums',
    });
    expect(byPath(chosen)).toEqual({
      INBOX: 'updates',
      '[Gmail]/Spam': 'promotions',
      '[Gmail]/Important': 'social',
      '[Gmail]/All Mail': 'forums',
      '[Gmail]/Trash': 'unknown',
      Receipts: 'unknown',
    });
  });

  it('cannot make a \\Noselect folder readable', () => {
    // Selecting it would fail the whole sweep, so no configuration should be able to ask for it.
    expect(scanFolders(GMAIL, { '[Gmail]': 'primary' }).map((f) => f.path)).not.toContain('[Gmail]');
  });

  it('never invent a folder the server did not list', () => {
    const chosen = scanFolders(DOVECOT, { Updates: 'updates', CATEGORY_SOCIAL: 'social' });
    expect(chosen.map((f) => f.path).sort()).toEqual(['Archive', 'INBOX', 'Junk', 'Promotions', 'Trash']);
  });
});

describe('scanFolders order', () => {
  /** The order folders are read in, one folder of each category: the first copy found is the one that counts. */
  const inOrder: { path: string; category: DetectedCategory }[] = [
    { path: 'INBOX', category: 'primary' },
    { path: 'Updates', category: 'updates' },
    { path: 'Promotions', category: 'promotions' },
    { path: 'Social', category: 'social' },
    { path: 'Forums', category: 'forums' },
    { path: 'Junk', category: 'spam' },
    { path: 'Trash', category: 'trash' },
    { path: 'Receipts', category: 'unknown' },
  ];

  it('puts INBOX first, then the other tabs, then spam, trash and unknown, however the server lists them', () => {
    const listed = [
      folder('Receipts'),
      folder('Trash', '\\Trash'),
      folder('Junk', '\\Junk'),
      folder('Forums'),
      folder('Social'),
      folder('Promotions'),
      folder('Updates'),
      folder('INBOX'),
    ];
    const chosen = scanFolders(listed, {
      Forums: 'forums',
      Social: 'social',
      Promotions: 'promotions',
      Updates: 'updates',
    });
    expect(chosen).toEqual(inOrder);
  });

  it('always ranks categories in that order and only returns selectable listed folders, for any list', () => {
    const order = inOrder.map(({ category }) => category);
    const names = [
      'INBOX',
      'Inbox',
      'Junk',
      'Spam',
      'Trash',
      'Sent',
      'Drafts',
      'Archive',
      'Promotions',
      'A/B',
    ];
    const folderArb = fc.record({
      path: fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 12 })),
      specialUse: fc.option(
        fc.constantFrom('\\Junk', '\\Trash', '\\Sent', '\\All', '\\Archive', '\\Drafts'),
        {
          nil: undefined,
        },
      ),
      flags: fc.subarray([
        '\\HasChildren',
        '\\HasNoChildren',
        '\\Noselect',
        '\\NonExistent',
        '\\Marked',
        '\\Important',
      ]),
    });
    const overridesArb = fc.dictionary(
      fc.constantFrom(...names, 'promotions', 'junk'),
      fc.constantFrom(...order),
      {
        maxKeys: 3,
      },
    );
    fc.assert(
      fc.property(fc.array(folderArb, { maxLength: 12 }), overridesArb, (folders, overrides) => {
        const chosen = scanFolders(folders, overrides);
        const ranks = chosen.map((f) => order.indexOf(f.category));
        expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
        expect(ranks).not.toContain(-1);
        for (const { path } of chosen) {
          const listed = folders.filter((f) => f.path === path);
          expect(listed.length).toBeGreaterThan(0);
          expect(listed.some((f) => !f.flags.some((flag) => /^\\(noselect|nonexistent)$/i.test(flag)))).toBe(
            true,
          );
        }
        const selectableInbox = folders.some(
          (f) =>
            f.path.toLowerCase() === 'inbox' &&
            !f.flags.includes('\\Noselect') &&
            !f.flags.includes('\\NonExistent'),
        );
        const inboxOverridden = Object.keys(overrides).some((key) => key.toLowerCase() === 'inbox');
        if (selectableInbox && !inboxOverridden) expect(chosen[0]?.category).toBe('primary');
      }),
      { numRuns: RUNS },
    );
  });
});
