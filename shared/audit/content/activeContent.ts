// Owns the check for active content in HTML: scripts never run in a mail client and forms look like phishing.
import type { ContentCheck } from './contentCheck';

export const activeContent: ContentCheck = {
  id: 'content.active',
  run: ({ scripts, forms }) => [
    ...(scripts > 0
      ? [
          {
            id: 'content.script',
            severity: 'high' as const,
            title: `The HTML holds ${scripts} script element(s).`,
            fix: 'Remove every <script>: mail clients strip it and filters score it as spam.',
            mattersFor: 'all' as const,
            source:
              "Yahoo sender best practices (no JavaScript, forms or embedded objects); SpamAssassin's HTML rules",
          },
        ]
      : []),
    ...(forms > 0
      ? [
          {
            id: 'content.form',
            severity: 'medium' as const,
            title: `The HTML holds ${forms} form(s).`,
            fix: 'Replace the form with a link to a page on your site.',
            mattersFor: 'all' as const,
            source: 'Yahoo sender best practices (no forms in mail); clients warn before submitting one',
          },
        ]
      : []),
  ],
};
