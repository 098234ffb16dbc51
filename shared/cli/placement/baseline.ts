// Owns `--baseline FILE`: reading a saved `--json` of an earlier check (refused clearly when the file is not one) and
// saying what changed since, section by section, each change marked when it is worse.
import { readFile, stat } from 'node:fs/promises';
import { type CheckView, type PlacementReport, reportProblem } from '../../client';
import { checkProblem } from '../../client/resources';
import { AUTH_METHODS } from './assertions';
import { auditChanges } from './auditChanges';
import { printable } from './explain';

/** What a saved run holds that a comparison reads. */
export interface SavedRun {
  check: CheckView;
  report: PlacementReport | null;
}

export interface Change {
  section: 'placement' | 'authentication' | 'spam verdicts' | 'sender audit';
  subject: string;
  before: string;
  after: string;
  /** True when this run is worse; a comparison that cannot be made against this run counts as worse. */
  worse: boolean;
}

/** A saved run of thousands of accounts stays well under this; a larger file is not one. */
const MAX_BASELINE_BYTES = 32 * 1024 * 1024;

export class BaselineError extends Error {
  override name = 'BaselineError';
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

export const readBaseline = async (file: string): Promise<SavedRun> => {
  const refuse = (why: string): never => {
    throw new BaselineError(`--baseline ${file}: ${why}`);
  };
  const size = await stat(file).then(
    (found) => (found.isFile() ? found.size : refuse('not a file')),
    (error: NodeJS.ErrnoException) => refuse(`cannot read it (${error.code ?? 'error'})`),
  );
  if (size > MAX_BASELINE_BYTES)
    refuse(`larger than ${MAX_BASELINE_BYTES} bytes, so no saved --json of a check`);
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) =>
    refuse(`cannot read it (${error.code ?? 'error'})`),
  );
  // With --no-send, --json prints the started check on a line of its own first; the run is the last line.
  const trimmed = text.trimEnd();
  const body = parsed(trimmed) ?? parsed(trimmed.slice(trimmed.lastIndexOf('\n') + 1));
  if (body === undefined) return refuse('not JSON: save the output of `check --json` of an earlier run');
  const problem = checkProblem(body);
  if (problem) return refuse(`not a saved \`check --json\` output (${problem})`);
  const saved = body as CheckView & { report?: unknown };
  if (saved.status === 'pending') refuse('the saved check had not settled, so it is no baseline');
  if (saved.report === undefined || saved.report === null) return { check: saved, report: null };
  const reportIssue = reportProblem(saved.report);
  if (reportIssue) refuse(`its placement report is not one (${reportIssue})`);
  return { check: saved, report: saved.report as PlacementReport };
};

const fraction = (count: number, of: number) => `${count}/${of}`;
/** Compared as rates, shown as counts: seed sets of different sizes still compare. */
const rateOf = (count: number, of: number) => (of === 0 ? undefined : count / of);

type Section = (before: SavedRun, after: SavedRun) => Change[];

/** The overall inbox rate, then each provider's inbox and spam shares over its accounts. */
const placementChanges: Section = (before, after) => {
  const changes: Change[] = [];
  const inbox = (check: CheckView) =>
    check.results.filter((r) => r.category === 'primary' || r.category === 'updates');
  const [was, now] = [inbox(before.check).length, inbox(after.check).length];
  const overall = [rateOf(was, before.check.total) ?? 0, rateOf(now, after.check.total) ?? 0] as const;
  if (overall[0] !== overall[1])
    changes.push({
      section: 'placement',
      subject: 'inbox, every account',
      before: fraction(was, before.check.total),
      after: fraction(now, after.check.total),
      worse: overall[1] < overall[0],
    });
  if (!before.report || !after.report) return changes;
  const [old, current] = [before.report.summary.by_provider, after.report.summary.by_provider];
  for (const provider of Object.keys(old).sort()) {
    // Provider names come from a file: only its own keys count, never what an object inherits.
    const was = old[provider];
    const now = Object.hasOwn(current, provider) ? current[provider] : undefined;
    if (!was) continue;
    if (!now) {
      changes.push({
        section: 'placement',
        subject: provider,
        before: `${was.total} accounts`,
        after: 'not in this run',
        worse: true,
      });
      continue;
    }
    for (const [field, worseWhen] of [
      ['inbox', -1],
      ['spam', 1],
    ] as const) {
      const [a, b] = [rateOf(was[field], was.total) ?? 0, rateOf(now[field], now.total) ?? 0];
      if (a !== b)
        changes.push({
          section: 'placement',
          subject: `${provider} ${field}`,
          before: fraction(was[field], was.total),
          after: fraction(now[field], now.total),
          worse: Math.sign(b - a) === worseWhen,
        });
    }
  }
  for (const provider of Object.keys(current).sort())
    if (!Object.hasOwn(old, provider))
      changes.push({
        section: 'placement',
        subject: provider,
        before: 'not in the baseline',
        after: `${current[provider]?.total} accounts`,
        worse: false,
      });
  return changes;
};

/** Per provider, how many received copies share a property, and over how many. */
const tallies = (report: PlacementReport, has: (account: PlacementReport['accounts'][number]) => boolean) => {
  const counts = new Map<string, { count: number; of: number }>();
  for (const account of report.accounts) {
    if (account.category === 'pending') continue;
    const entry = counts.get(account.provider) ?? { count: 0, of: 0 };
    entry.of++;
    if (has(account)) entry.count++;
    counts.set(account.provider, entry);
  }
  return counts;
};

/** Shares per provider compared; `worseWhen` says which direction is worse (-1: fewer is worse). */
const shareChanges = (
  section: Change['section'],
  label: string,
  before: Map<string, { count: number; of: number }>,
  after: Map<string, { count: number; of: number }>,
  worseWhen: -1 | 1,
): Change[] =>
  [...before].flatMap(([provider, was]) => {
    const now = after.get(provider) ?? { count: 0, of: 0 };
    const [a, b] = [rateOf(was.count, was.of), rateOf(now.count, now.of)];
    if (a === b) return [];
    // Nothing received now where something was before: nothing to compare, so not better.
    const worse =
      b === undefined ? was.count > 0 || worseWhen === 1 : a !== undefined && Math.sign(b - a) === worseWhen;
    return [
      {
        section,
        subject: `${provider} ${label}`,
        before: fraction(was.count, was.of),
        after: fraction(now.count, now.of),
        worse,
      },
    ];
  });

/** Each method's passes among received copies, per provider; an unknown verdict is not a pass. */
const authChanges: Section = (before, after) => {
  if (!before.report || !after.report) return [];
  const [old, current] = [before.report, after.report];
  return AUTH_METHODS.flatMap((method) => {
    const passes = (report: PlacementReport) =>
      tallies(report, (account) => account.auth?.[method] === 'pass');
    return shareChanges('authentication', `${method} pass`, passes(old), passes(current), -1);
  });
};

/** Copies a receiving filter called spam, per provider, whatever folder they landed in. */
const spamChanges: Section = (before, after) => {
  if (!before.report || !after.report) return [];
  const spam = (report: PlacementReport) => tallies(report, (account) => account.spam?.verdict === 'spam');
  return shareChanges('spam verdicts', 'called spam', spam(before.report), spam(after.report), 1);
};

/** Each section compares one part of the saved runs; a run saved before the audit has nothing for its section. */
const SECTIONS: readonly Section[] = [placementChanges, authChanges, spamChanges, auditChanges];

export const compareRuns = (before: SavedRun, after: SavedRun): Change[] => {
  const missing: Change[] =
    before.report && !after.report
      ? [
          {
            section: 'placement',
            subject: 'placement report',
            before: 'present',
            after: 'missing: providers, authentication and spam verdicts not compared',
            worse: true,
          },
        ]
      : [];
  return [...missing, ...SECTIONS.flatMap((section) => section(before, after))];
};

/** The comparison as lines for people: one per change, worse ones marked. */
export const changeLines = (before: SavedRun, after: SavedRun, changes: readonly Change[]): string[] => [
  `changes since check ${printable(before.check.check_id, 80)}:`,
  ...(before.report || !after.report
    ? []
    : ['  the baseline has no placement report: only the inbox rate is compared']),
  ...(changes.length === 0
    ? ['  nothing changed']
    : changes.map(
        (change) =>
          `  ${change.worse ? 'worse  ' : 'changed'}  ${change.section}: ${printable(change.subject, 80)} ${change.before} → ${change.after}`,
      )),
];
