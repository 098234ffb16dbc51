// Property-based tests of header parsing and tag matching, on the shared generators of scripts/lib/headerMessages.ts
// and the properties of scripts/lib/headerProperties.ts (the oracle is described there). A short run;
// bench/properties.ts runs 100,000+.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type MessageShape, messageArbs } from '../../scripts/lib/headerMessages';
import { describeMessage, featuresOf, problemsOf, scanOne } from '../../scripts/lib/headerProperties';

const RUNS: Record<MessageShape, number> = {
  model: 2000,
  chaos: 1000,
  large: 8,
  oversized: 8,
  'too-many-tags': 20,
};

describe('header parsing and tag matching, generated', () => {
  for (const [shape, runs] of Object.entries(RUNS) as [MessageShape, number][]) {
    it(`attributes ${runs} generated ${shape} messages only to the accounts and checks they were delivered to`, () => {
      fc.assert(
        fc.property(messageArbs[shape], (message) => {
          const problems = problemsOf(message, scanOne(message));
          if (problems.length > 0) throw new Error(`${problems.join('\n')}\n${describeMessage(message)}`);
        }),
        { numRuns: runs },
      );
    });
  }

  it('generates every case the properties claim to cover', () => {
    const seen = new Set<string>();
    for (const shape of ['model', 'chaos'] as const) {
      for (const message of fc.sample(messageArbs[shape], { numRuns: 2000, seed: 7 })) {
        for (const feature of featuresOf(message)) seen.add(feature);
      }
    }
    for (const shape of ['oversized', 'too-many-tags'] as const) {
      for (const message of fc.sample(messageArbs[shape], { numRuns: 2, seed: 7 })) {
        for (const feature of featuresOf(message)) seen.add(feature);
      }
    }
    expect([...seen].sort()).toEqual(
      [
        'folded header',
        'encoded-word',
        'several Delivered-To',
        'NUL',
        'non-ASCII',
        'tag in a display name',
        'tag in a comment',
        'tag in a subject',
        'tag for another account',
        'tag delivered to this mailbox',
        'untagged for this mailbox',
        'over MAX_HEADER_BYTES',
        'over MAX_TAG_CANDIDATES marks',
        'bytes',
      ].sort(),
    );
  });
});
