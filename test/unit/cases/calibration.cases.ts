// Hand-computed cases for calibration (shared/calibration/domain/seedHealth.ts, controlRun.ts), from the rules docs/operating.md
// states. Each was worked out by hand from the rule, not by running the code:
//   outcome: primary/updates -> inbox; missing with login failures -> unreachable; anything else -> astray.
//   provider flagged: 2 x astray > seeds read (total - unreachable), seeds read > 0.
//   suspect: astray while its provider was not flagged, in 2 of the seed's latest 3 calibrations.
//   unknown: the latest calibration older than 3 x its interval (30 days where none is known).
import type { Category } from '../../../shared/domain/categories';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** [category, login failures, outcome]. */
export const OUTCOMES: [Category, number, 'inbox' | 'astray' | 'unreachable'][] = [
  ['primary', 0, 'inbox'],
  ['updates', 0, 'inbox'],
  ['spam', 0, 'astray'],
  ['trash', 0, 'astray'],
  ['unknown', 0, 'astray'],
  ['promotions', 0, 'astray'],
  ['pending', 0, 'astray'],
  ['pending', 3, 'unreachable'],
  // Found in spam: the seed was read, whatever its health record said.
  ['spam', 3, 'astray'],
  ['primary', 3, 'inbox'],
];

/** One calibration of a seed: its category, and `!` when its provider was flagged, `x` when its logins failed. */
export type Step = `${Category}${'' | '!' | 'x'}`;

/** [steps oldest first, suspect]. */
export const SUSPECT: [Step[], boolean][] = [
  [['trash', 'trash'], true], // the operator: a server that files everything in Trash
  [['unknown', 'primary', 'unknown'], true],
  [['promotions', 'spam'], true],
  [['pending', 'pending'], true],
  [['spam!', 'spam!'], false], // the provider lost it at most seeds both times: not the seed
  [['spam!', 'spam', 'spam!'], false],
  [['spam', 'spam!', 'spam'], true],
  [['pendingx', 'pendingx'], false], // unreadable twice: nothing known against it
  [['pendingx', 'pending', 'pending'], true],
  [['updates', 'spam'], false],
  [['spam', 'spam', 'primary', 'updates', 'primary'], false],
  [['primary', 'trash', 'primary', 'spam'], true],
];

/** [the seeds of one provider in one calibration (category, login failures), provider flagged]. */
export const FLAGGED: [[Category, number][], boolean][] = [
  [
    [
      ['spam', 0],
      ['spam', 0],
      ['spam', 0],
    ],
    true,
  ],
  [
    [
      ['spam', 0],
      ['trash', 0],
      ['primary', 0],
    ],
    true,
  ], // 2 of 3
  [
    [
      ['trash', 0],
      ['primary', 0],
      ['updates', 0],
    ],
    false,
  ], // 1 of 3: that seed, not the provider
  [
    [
      ['spam', 0],
      ['primary', 0],
    ],
    false,
  ], // 1 of 2: half is not most
  [[['spam', 0]], true], // one seed cannot be told from its provider
  [
    [
      ['pending', 2],
      ['pending', 2],
      ['spam', 0],
    ],
    true,
  ], // 1 of the 1 seed read
  [
    [
      ['pending', 2],
      ['pending', 2],
      ['primary', 0],
    ],
    false,
  ],
  [
    [
      ['pending', 2],
      ['pending', 2],
    ],
    false,
  ], // none read: nothing known
];

/** [latest calibration's age, its interval or undefined, state]. */
export const STALENESS: [number, number | undefined, 'ok' | 'unknown'][] = [
  [18 * HOUR, 6 * HOUR, 'ok'], // exactly 3 intervals: still known
  [18 * HOUR + 1, 6 * HOUR, 'unknown'],
  [90 * DAY, undefined, 'ok'],
  [90 * DAY + 1, undefined, 'unknown'], // no interval known: 30 days assumed
  [93 * DAY, 31 * DAY, 'ok'], // a month apart: known for three months
  [31 * DAY, 6 * HOUR, 'unknown'], // the old rule read this as healthy for 30 days
];

/** [run at, the scope's previous run at, the schedule's interval, interval]. */
export const INTERVALS: [number, number | undefined, number | undefined, number][] = [
  [100 * DAY, 99 * DAY, 6 * HOUR, 6 * HOUR], // a schedule says
  [100 * DAY, 69 * DAY, undefined, 31 * DAY], // else the time since the previous run
  [100 * DAY, 100 * DAY - 60_000, undefined, 15 * 60_000], // a rerun a minute later: never under 15 minutes
  [100 * DAY, undefined, undefined, 30 * DAY], // the first run: 30 days assumed
];

/** [interval, retention]: 30 days, or one interval past staleness (4 intervals) if longer. */
export const RETENTION: [number | undefined, number][] = [
  [6 * HOUR, 30 * DAY],
  [undefined, 120 * DAY], // a first calibration: the next one meets it up to 120 days later
  [7 * DAY, 30 * DAY], // 28 days
  [31 * DAY, 124 * DAY],
];
