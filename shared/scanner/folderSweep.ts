// Owns one folder of an account's sweep: each read of it attributed, recorded, and its cursor moved only after.
import type { RecordOutcome } from '../domain/ports';
import { attribute } from './attributing';
import { type FolderRead, readAhead, readNew, type SweepBudget } from './folderReads';
import type { ScanFolder } from './folders';
import type { ActiveCheckPlan } from './planning';
import { type AccountState, advanceCursors } from './reading';
import type { Recorder } from './recording';
import type { ScannerDeps } from './ScannerDeps';
import type { AccountSweep } from './scanHooks';
import type { FolderState, MailboxCredentials, MailboxSession } from './scannerPorts';
import type { TabGrace } from './tabGrace';
import type { Watches } from './watching';

/** What one account's sweep shares across its folders. */
export interface AccountSweepContext {
  deps: ScannerDeps;
  plan: ActiveCheckPlan;
  record: Recorder;
  tabs: TabGrace;
  watches: Watches;
  email: string;
  state: AccountState;
  credentials: MailboxCredentials;
  /** The session that reads and asks for tabs, and the one (maybe the same) that reads the folders chosen. */
  session: MailboxSession;
  reader: MailboxSession;
  evidence: Parameters<typeof attribute>[1]['evidence'];
  report: AccountSweep;
  /** Cursors read past and not yet written. */
  moved: NonNullable<AccountState['cursors']>;
  budget: SweepBudget;
  /** Whether the scanner is closing: a draining sweep stops after its current batch. */
  winding: () => boolean;
}

/** Reads one folder to its end or the sweep's budget: `unfinished`, more is left; `stalled`, a fetch missed. */
export const sweepFolder = async (
  context: AccountSweepContext,
  folder: ScanFolder,
  folderState: FolderState,
): Promise<{ unfinished: boolean; stalled: boolean }> => {
  const { deps, email, state, reader, budget } = context;
  let [unfinished, stalled, first] = [false, false, true];
  for await (const read of readNew(deps.cursors, deps.clock, email, state, reader, folderState, budget)) {
    if (first) context.report.foldersRead++;
    first = false;
    unfinished = read.partial;
    stalled ||= read.stalled !== undefined;
    if (read.stalled?.skipped) context.record.skipped(email, folder.path, read.stalled.skipped, 'deadline');
    for (const uid of read.skipped ?? []) context.record.skipped(email, folder.path, uid, 'too-large');
    if (!(await takeRead(context, folder, read))) {
      unfinished = false;
      break;
    }
    if (!read.cursor) continue;
    // News, or a scanner closing, ends the oldest-first batches here; every folder still gets its first.
    if (context.watches.hasNews(email) || context.winding()) budget.batches = 0;
    if (!read.partial) continue;
    // A backlog keeps its progress batch by batch: a sweep failing later resumes from here.
    await advanceCursors(deps.cursors, email, state, context.moved);
    context.moved.clear();
  }
  return { unfinished, stalled };
};

/** Attributes and records one read; false when a copy waiting for its Gmail tab holds the cursor (read no further). */
const takeRead = async (
  context: AccountSweepContext,
  folder: ScanFolder,
  read: FolderRead,
): Promise<boolean> => {
  const { deps, plan, tabs, email, credentials, report } = context;
  const { path } = folder;
  report.messagesFetched += read.messages.length;
  const messages = read.cursor ? tabs.unread(email, path, read.messages) : read.messages;
  await plan.listed(messages);
  const found = await attribute(messages, {
    email,
    session: context.session,
    folderCategory: folder.category,
    path,
    evidence: context.evidence,
    trust: credentials.trust,
    wanted: (checkId, message) => plan.mayWait(checkId, message.internalDate),
    costOf: ({ uid }, cost) => deps.events?.parsed?.({ email, path, uid, ...cost }),
  });
  // Written, by this scanner or before it; or the check is over: either way nothing more to wait for here.
  const placed = (checkId: string, outcome: RecordOutcome) =>
    plan.placed(checkId, email, outcome === 'closed', deps.clock.now());
  // The next copies are likely to land where these did: a watch that can select that folder does. Only copies of a
  // check this scanner waits for say so: a copy of another check (a first sweep reads recent ones; any sender can
  // write a tag) would steer the watch by someone else's mail.
  if (found.copies.some((copy) => plan.awaited(copy.checkId) !== undefined))
    context.watches.landed(email, path);
  if (!read.cursor) {
    // Read ahead of the cursor: a copy no tab search names yet is left to the read that reaches it in order.
    report.placements += await context.record.all(found.copies, credentials, path, placed);
    if (read.ahead && found.untabbed.length === 0) readAhead(context.state, path, read.ahead);
    return true;
  }
  const waited = tabs.decide(email, path, found.untabbed, read.cursor, deps.clock.now(), (id) =>
    plan.createdAtOf(id),
  );
  report.placements += await context.record.all(
    [...found.copies, ...waited.unknown],
    credentials,
    path,
    placed,
  );
  // Results are written before the cursor moves, so a crash in between re-reads, never skips.
  context.moved.set(path, waited.cursor);
  // A copy waiting for its tab holds the cursor: the folder is read from there again, as its grace allows.
  return waited.cursor.lastUid >= read.cursor.lastUid;
};
