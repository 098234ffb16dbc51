// Owns the list of content checks run on a copy's source: a new check is one module added here.
import { activeContent } from './activeContent';
import { attachments } from './attachments';
import type { ContentCheck } from './contentCheck';
import { htmlSize } from './htmlSize';
import { imageRatio } from './imageRatio';
import { links } from './links';
import { textPart } from './textPart';
import { trackingPixels } from './trackingPixels';

export const CONTENT_CHECKS: readonly ContentCheck[] = [
  htmlSize,
  textPart,
  imageRatio,
  trackingPixels,
  links,
  attachments,
  activeContent,
];
