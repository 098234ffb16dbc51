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
  /** The commit of the run that measured it (from the section's stamp). */
  commit: string;
  /** Why a missed goal is missed, as the goal states it. */
  missed: string | undefined;
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

const commitOf = (section: StampedSection | undefined): string =>
  section?.stamp ? section.stamp.commit : section ? 'not recorded' : 'not run';

export const goalRows = (results: Results): Row[] =>
  GOALS.map((goal) => {
    const section = results[goal.section] as Record<string, unknown> | undefined;
    const base = {
      goal: goal.goal,
      command: goal.command,
      commit: commitOf(section as StampedSection | undefined),
      missed: goal.missed,
    };
    if (!section) return { ...base, measured: 'not run', pass: false, missed: 'not run' };
    return { ...base, ...goal.read(section) };
  });

/** pass, reported (no threshold), or MISSED with its reason. */
export const verdictOf = (row: Pick<Row, 'pass' | 'missed'>): string =>
  row.pass === undefined
    ? 'reported'
    : row.pass
      ? 'pass'
      : `**MISSED**: ${row.missed ?? 'no reason is stated with this goal yet'}`;

/**
 * Each goal once: what it asks, its latest figure, pass or missed (and why), the commit that measured it and the
 * command that measures it again; how each is measured is the page's Method. `sections` keeps only those goals.
 */
export const goalsTable = (results: Results, sections?: readonly string[]): string => {
  const cell = (text: string) => text.replaceAll('|', '/');
  const rows = goalRows(results).filter(
    (_, index) => !sections || sections.includes(GOALS[index]?.section ?? ''),
  );
  const lines = [
    '| Goal | Latest figure | Result | Commit | Reproduce |',
    '|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${cell(row.goal)} | ${cell(row.measured)} | ${cell(verdictOf(row))} | ${row.commit} | \`${row.command}\` |`,
    ),
  ];
  return lines.join('\n');
};

/** The sections whose goals RELIABILITY.md shows beside its tests: the long variants `npm run bench` runs. */
export const RELIABILITY_SECTIONS = [
  'load',
  'properties',
  'killRestart',
  'fairness',
  'linearParsing',
] as const;

/** `text` with what lies between `begin` and `end` (kept) replaced by `content`; throws when a marker is missing. */
export const withBlock = (text: string, [begin, end]: readonly [string, string], content: string): string => {
  const from = text.indexOf(begin);
  const to = text.indexOf(end, from);
  if (from === -1 || to === -1) throw new Error(`markers ${begin} … ${end} not found`);
  return `${text.slice(0, from + begin.length)}\n${content}\n${text.slice(to)}`;
};

export const BENCH_BLOCK = ['<!-- bench:begin -->', '<!-- bench:end -->'] as const;

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
