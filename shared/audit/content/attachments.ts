// Owns the attachment check: executable and macro types are blocked or filtered by the big providers, archives can
// hide them, anything else is only noted.
import type { ContentCheck } from './contentCheck';

/** File types Gmail blocks outright ("File types blocked in Gmail"), and macro-enabled Office documents. */
const BLOCKED = new Set(
  'ade adp apk appx appxbundle bat cab chm cmd com cpl diagcab diagcfg diagpack dll dmg ex ex_ exe hta img ins iso isp jar jnlp js jse lib lnk mde msc msi msix msixbundle msp mst nsh pif ps1 scr sct shb sys vb vbe vbs vhd vxd wsc wsf wsh xll docm xlsm pptm'.split(
    ' ',
  ),
);
const ARCHIVES = new Set(['zip', 'rar', '7z', 'gz', 'tgz', 'bz2', 'tar', 'ace', 'arj']);

/** A MIME type as the sender wrote it, shown only when it reads as one. */
const MIME_TYPE = /^[a-z0-9.+-]{1,40}\/[a-z0-9.+-]{1,80}$/;
const shownType = (type: string): string => (MIME_TYPE.test(type) ? type : 'an unreadable type');

const extensionOf = (filename: string | undefined): string => {
  const dot = filename?.lastIndexOf('.') ?? -1;
  return filename === undefined || dot === -1
    ? ''
    : filename
        .slice(dot + 1)
        .toLowerCase()
        .trim();
};

export const attachments: ContentCheck = {
  id: 'content.attachments',
  run: (content) => {
    const types = content.attachments.map((a) => extensionOf(a.filename));
    const blocked = types.filter((t) => BLOCKED.has(t));
    const archives = types.filter((t) => ARCHIVES.has(t));
    const source = 'Gmail help: file types blocked in Gmail (support.google.com/mail/answer/6590)';
    return [
      ...(blocked.length > 0
        ? [
            {
              id: 'content.attachment-blocked-type',
              severity: 'critical' as const,
              title: `An attachment is of a type mailbox providers block (.${blocked[0]}).`,
              fix: 'Link to the file on your site instead of attaching it.',
              mattersFor: 'all' as const,
              source,
            },
          ]
        : []),
      ...(archives.length > 0
        ? [
            {
              id: 'content.attachment-archive',
              severity: 'medium' as const,
              title: `An attachment is an archive (.${archives[0]}), which filters open or distrust.`,
              fix: 'Send the files unarchived or as a link to your site.',
              mattersFor: 'all' as const,
              source,
            },
          ]
        : []),
      ...(content.attachments.length > 0 && blocked.length === 0 && archives.length === 0
        ? [
            {
              id: 'content.attachments',
              severity: 'info' as const,
              title: `The message carries ${content.attachments.length} attachment(s): ${[...new Set(content.attachments.map((a) => shownType(a.contentType)))].slice(0, 5).join(', ')}.`,
              fix: 'Prefer links for bulk mail: attachments make a message larger and more suspect.',
              mattersFor: 'all' as const,
              source,
            },
          ]
        : []),
    ];
  },
};
