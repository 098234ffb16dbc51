// Every function that reads text a sender or an API client controls grows linearly with it: for each hostile payload
// of scripts/lib/linearity.ts, the best CPU time of one call at each size is at most MAX_DOUBLING_GROWTH (2) times
// per doubling of the input the time at the size before, eight times smaller (three doublings: 8 ×), plus NOISE_MS
// (1 ms, the timing's own noise, documented there), up to a megabyte (1 MB against 125 KB is the last step). The sizes
// are timed in turns, best of three rounds; a steep ladder is timed again, up to ATTEMPTS in all, since a neighbour
// can tax one timing and never a real quadratic cost.
import { describe, expect, it } from 'vitest';
import {
  type Growth,
  growthOn,
  MAX_DOUBLING_GROWTH,
  NOISE_MS,
  PAYLOADS,
  SIZES,
  SUBJECTS,
  type Subject,
} from '../../scripts/lib/linearity';

const round = (value: number) => Math.round(value * 1000) / 1000;

/** Steep, or short of the megabyte: every ladder must reach the largest size. */
const failed = (growth: Growth) => growth.steep || growth.sizes.length < SIZES.length;

describe('linear time on hostile text', () => {
  it.each(SUBJECTS.map((subject) => [subject.name, subject] as const))(
    `%s grows at most ${MAX_DOUBLING_GROWTH}× per doubling (+ ${NOISE_MS} ms) from 15.6 KB to 1 MB`,
    async (_name, subject) => {
      const steep: string[] = [];
      for (const payload of Object.keys(PAYLOADS)) {
        const growth = await growthOn(subject, payload);
        if (failed(growth))
          steep.push(
            `${payload}: ${growth.sizes.map((size, at) => `${size} B ${round(growth.ms[at] ?? Number.NaN)} ms`).join(', ')} (per doubling ${growth.perDoubling.map(round).join(', ')})`,
          );
      }
      expect(steep).toEqual([]);
    },
    120_000,
  );

  // The harness can fail: a deliberately quadratic reader, awaited and allocating like contentFactsOf (so it takes the
  // path with more rounds), is steep on every attempt. Its ladder stops at 125 KB:
  // a quadratic megabyte would take seconds a call.
  it('judges a quadratic, allocating async reader steep', async () => {
    const quadratic: Subject = {
      name: 'quadratic',
      field: 'subject',
      input: (payload) => payload,
      run: async (input) => {
        const text = input as string;
        let sum = 0;
        for (let from = 0; from < text.length; from += 64) {
          const copy = Buffer.from(text.slice(from), 'latin1');
          for (const byte of copy) sum += byte;
          if (from % 8192 === 0) await Promise.resolve();
        }
        return sum;
      },
      allocates: true,
    };
    const growth = await growthOn(quadratic, 'blanks', { largest: SIZES[1] });
    expect(growth.sizes).toEqual([SIZES[0], SIZES[1]]);
    expect(growth.steep).toBe(true);
  }, 60_000);
});
