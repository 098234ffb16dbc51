// Owns the image-to-text check: a message that is mostly pictures with little text reads as spam to content
// filters, which cannot read the pictures.
import type { ContentCheck } from './contentCheck';

/** Below this many characters of visible text, a message with images is "image-only". */
const IMAGE_ONLY_TEXT = 200;
/** Fewer characters of text than this per image is a low text-to-image ratio. */
const TEXT_PER_IMAGE = 100;

const SOURCE = "SpamAssassin's HTML_IMAGE_ONLY_* and HTML_IMAGE_RATIO_* rules";

export const imageRatio: ContentCheck = {
  id: 'content.image-ratio',
  run: ({ images, htmlTextChars }) => {
    const count = images.remote + images.embedded - images.trackingPixels;
    if (count <= 0) return [];
    if (htmlTextChars < IMAGE_ONLY_TEXT)
      return [
        {
          id: 'content.image-only',
          severity: 'high',
          title: `The message is images with ${htmlTextChars} characters of text.`,
          fix: 'Put the message in HTML text and keep images as illustration, with a few sentences at least.',
          mattersFor: 'all',
          source: SOURCE,
        },
      ];
    if (htmlTextChars / count < TEXT_PER_IMAGE)
      return [
        {
          id: 'content.image-ratio',
          severity: 'medium',
          title: `The message has ${count} images for ${htmlTextChars} characters of text.`,
          fix: 'Add text or drop images so each image has at least a short paragraph beside it.',
          mattersFor: 'all',
          source: SOURCE,
        },
      ];
    return [];
  },
};
