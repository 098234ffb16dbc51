// Every function that reads text a sender or an API client controls grows linearly with it: for each hostile payload
// of scripts/lib/linearity.ts, the time of one call at each size is at most MAX_STEP_RATIO times the time at an
// eighth of it, measured side by side in this test, up to a megabyte (1 MB against 128 KB is the last step); a steep
// ladder is timed again, up to ATTEMPTS in all, since a neighbour can tax one timing and never a real quadratic cost.
import { describe, expect, it } from 'vitest';
import {
  type Growth,
  growthOn,
  isSteep,
  MAX_STEP_RATIO,
  PAYLOADS,
  SIZES,
  SUBJECTS,
} from '../../scripts/lib/linearity';

const round = (value: number) => Math.round(value * 1000) / 1000;

/** Steep, or short of the megabyte: every ladder must reach the largest size. */
const failed = (growth: Growth) => isSteep(growth) || growth.sizes.length < SIZES.length;

describe('linear time on hostile text', () => {
  it.each(SUBJECTS.map((subject) => [subject.name, subject] as const))(
    `%s grows at most ${MAX_STEP_RATIO}× per step from 2 KB to 1 MB (the last 128 KB to 1 MB)`,
    (_name, subject) => {
      const steep = Object.keys(PAYLOADS)
        .map((payload) => growthOn(subject, payload))
        .filter(failed)
        .map(
          ({ payload, sizes, ms, ratios }) =>
            `${payload}: ${sizes.map((size, index) => `${size} B ${round(ms[index] ?? Number.NaN)} ms`).join(', ')} (steps ${ratios.map(round).join(', ')})`,
        );
      expect(steep).toEqual([]);
    },
    120_000,
  );
});
