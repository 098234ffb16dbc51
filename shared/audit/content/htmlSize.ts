// Owns the HTML size check: Gmail shows only the first part of an HTML body past about 102 KB, behind a
// "[Message clipped]" link, which hides the rest (often the unsubscribe link and the open-tracking pixel).
import type { ContentCheck } from './contentCheck';

/** Gmail's clipping point as measured by email-client testers (Email on Acid, Litmus); Google documents no figure. */
export const GMAIL_CLIP_BYTES = 102 * 1024;

export const htmlSize: ContentCheck = {
  id: 'content.html-clipped',
  run: (content) =>
    content.htmlBytes > GMAIL_CLIP_BYTES
      ? [
          {
            id: 'content.html-clipped',
            severity: 'medium',
            title: `The HTML body is ${Math.round(content.htmlBytes / 1024)} KB: Gmail clips anything past 102 KB.`,
            fix: 'Trim the HTML (inline CSS, comments, unused markup) below 100 KB so Gmail shows the whole message.',
            mattersFor: ['gmail'],
            source: 'Gmail message clipping at 102 KB (Email on Acid and Litmus measurements)',
          },
        ]
      : [],
};
