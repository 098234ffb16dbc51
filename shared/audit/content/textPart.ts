// Owns the check that an HTML message carries a text/plain alternative beside it (RFC 2046 multipart/alternative).
import type { ContentCheck } from './contentCheck';

export const textPart: ContentCheck = {
  id: 'content.no-text-part',
  run: (content) =>
    content.hasHtml && !content.hasText
      ? [
          {
            id: 'content.no-text-part',
            severity: 'low',
            title: 'The message has an HTML part and no plain-text alternative.',
            fix: 'Send multipart/alternative with a text/plain part that says what the HTML says.',
            mattersFor: 'all',
            source: "RFC 2046 multipart/alternative; SpamAssassin's MIME_HTML_ONLY rule",
          },
        ]
      : [],
};
