// Owns the tracking-pixel check: 1x1 or hidden remote images, which filters and privacy proxies treat as tracking.
import type { ContentCheck } from './contentCheck';

export const trackingPixels: ContentCheck = {
  id: 'content.tracking-pixel',
  run: ({ images }) =>
    images.trackingPixels > 1
      ? [
          {
            id: 'content.tracking-pixel',
            severity: 'low',
            title: `The HTML holds ${images.trackingPixels} tracking pixels (1x1 or hidden images).`,
            fix: 'Keep one open-tracking pixel at most, served from your own domain.',
            mattersFor: 'all',
            source:
              "Apple Mail Privacy Protection and Gmail's image proxy fetch them anyway; SpamAssassin's T_REMOTE_IMAGE",
          },
        ]
      : [],
};
