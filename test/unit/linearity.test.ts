// Every function that reads text a sender or an API client controls grows linearly with it: for each hostile payload
// of scripts/lib/linearity.ts, the time of one call at each size is at most MAX_STEP_RATIO times the time at an
// eighth of it, measured side by side in this test, up to a megabyte (1 MB against 128 KB is the last step).
import { describe, expect, it } from 'vitest';
import {
  type Growth,
  growthOf,
  MAX_STEP_RATIO,
  PAYLOADS,
  SIZES,
  SUBJECTS,
  type Subject,
} from '../../scripts/lib/linearity';

const round = (value: number) => Math.round(value * 1000) / 1000;

const isSteep = (growth: Growth) =>
  growth.sizes.length < SIZES.length || growth.ratios.some((ratio) => ratio > MAX_STEP_RATIO);

/**
 * A ladder timed again, up to ATTEMPTS in all, while it looks steep: on a machine shared with other suites one
 * timing can be taxed by a neighbour; a cost that really grows faster than linear is steep in every attempt.
 */
const ATTEMPTS = 3;
const growthOn = (subject: Subject, payload: string): Growth => {
  let growth = growthOf(subject, payload);
  for (let attempt = 1; attempt < ATTEMPTS && isSteep(growth); attempt++) growth = growthOf(subject, payload);
  return growth;
};

describe('linear time on hostile text', () => {
  it.each(SUBJECTS.map((subject) => [subject.name, subject] as const))(
    `%s grows at most ${MAX_STEP_RATIO}× per step from 2 KB to 1 MB (the last 128 KB to 1 MB)`,
    (_name, subject) => {
      const steep = Object.keys(PAYLOADS)
        .map((payload) => growthOn(subject, payload))
        .filter(isSteep)
        .map(
          ({ payload, sizes, ms, ratios }) =>
            `${payload}: ${sizes.map((size, index) => `${size} B ${round(ms[index] ?? Number.NaN)} ms`).join(', ')} (steps ${ratios.map(round).join(', ')})`,
        );
      expect(steep).toEqual([]);
    },
    120_000,
  );
});
