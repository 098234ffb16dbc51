// Owns the goals table of BENCHMARKS.md (and the load and property goals of RELIABILITY.md): the goals in order, each
// one's row from a benchmark run's results, and the heading naming the runs. Each goal (its threshold, how to read its
// figure, the command that reproduces it) lives in scannerGoals, auditGoals, apiGoals, costGoals or reliabilityGoals.

import { API_GOALS } from './apiGoals';
import { AUDIT_GOALS } from './auditGoals';
import { COST_GOALS } from './costGoals';
import { RELIABILITY_GOALS } from './reliabilityGoals';
import { describeStamp, type RunStamp } from './runStamp';
import { SCANNER_GOALS } from './scannerGoals';
import { WEBHOOK_GOALS } from './webhookGoals';
import { WIRE_GOALS } from './wireGoals';

type Results = Record<string, unknown>;

interface Row {
  goal: string;
  measured: string;
  /** undefined when the figure is reported without a threshold. */
  pass: boolean | undefined;
  command: string;
}

/** In the table's order. */
export const GOALS = [
  ...SCANNER_GOALS,
  ...WIRE_GOALS,
  ...AUDIT_GOALS,
  ...API_GOALS,
  ...WEBHOOK_GOALS,
  ...COST_GOALS,
  ...RELIABILITY_GOALS,
];

export const goalRows = (results: Results): Row[] =>
  GOALS.map((goal) => {
    const section = results[goal.section] as Record<string, unknown> | undefined;
    if (!section) return { goal: goal.goal, measured: 'not run', pass: false, command: goal.command };
    return { goal: goal.goal, ...goal.read(section), command: goal.command };
  });

export const goalsTable = (results: Results): string => {
  const verdict = (pass: boolean | undefined) => (pass === undefined ? 'reported' : pass ? 'pass' : 'FAIL');
  const lines = [
    '| Goal | Measured | Result | Reproduce |',
    '|---|---|---|---|',
    ...goalRows(results).map(
      (row) =>
        `| ${row.goal} | ${row.measured.replaceAll('|', '/')} | ${verdict(row.pass)} | \`${row.command}\` |`,
    ),
  ];
  return lines.join('\n');
};

/** What `npm run bench` stores on every section it ran, so a rewritten table names the run that measured it. */
export type StampedSection = { ranAt?: string; stamp?: RunStamp; command?: string };

/** Each run whose sections the table shows, with its own stamp (sections from before stamps: their time only). */
export const runsHeading = (results: Record<string, unknown>) => {
  const runs = new Map<string, string[]>();
  for (const [name, section] of Object.entries(results) as [string, StampedSection][]) {
    const stamp = section.stamp
      ? `${describeStamp(section.stamp)} (\`${section.command ?? 'npm run bench'}\`)`
      : `${section.ranAt ?? 'unknown time'}, commit and machine not recorded`;
    runs.set(stamp, [...(runs.get(stamp) ?? []), name]);
  }
  if (runs.size === 1) return `One run, ${[...runs.keys()][0]}:`;
  return [
    `Sections from ${runs.size} runs:`,
    '',
    ...[...runs].map(([stamp, names]) => `- ${names.join(', ')}: ${stamp}`),
  ].join('\n');
};
