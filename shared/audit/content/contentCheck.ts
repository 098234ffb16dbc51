// Owns the shape of one content check: a small pure module that judges the content facts of one copy.
import type { ContentFacts, Finding } from '../types';

export interface ContentCheck {
  id: string;
  run(content: ContentFacts): Finding[];
}
