// Owns what `npm run placement -- …` (and `inbox-placement check …`) does (its process is shared/main/placement.ts):
// start a check, send ONE message to all its addresses, poll at the spec's interval until it settles, print where the
// message landed and exit by the inbox rate.

import { writeFile } from 'node:fs/promises';
import { createSender, parseSmtpUrl, SmtpError, type SmtpTarget, SmtpUrlError } from '../adapters/smtp/smtp';
import {
  ApiError,
  ApiKeyRejectedError,
  CheckGoneError,
  type CheckView,
  createClient,
  type InboxPlacementClient,
  inboxRate,
  NetworkError,
  NoAccountsInScopeError,
  type PlacementReport,
  WaitTimeoutError,
} from '../client/index';
import type { CliSettings } from '../config';
import { readReportAndAudit } from './placement/auditWait';
import { BaselineError, readBaseline, type SavedRun } from './placement/baseline';
import { controlLines } from './placement/controlLines';
import { type GateVerdict, isGate, judgeGate } from './placement/gate';
import { renderHtmlReport } from './placement/htmlReport';
import { type LoadedMessage, loadDkim, loadMessage, MessageError, mailFor } from './placement/message';
import { type CheckOptions, parseCheckOptions, UsageError } from './placement/options';
import { createProgress, jsonReport, type ProgressStream, percent, tableReport } from './placement/output';
import { reportTable } from './placement/reportTable';
import { USAGE } from './placement/usage';

export interface CheckIo {
  /** What the environment says (service URL, API key, SMTP password), read once by the caller. */
  settings: CliSettings;
  stdout: (text: string) => void;
  stderr: ProgressStream;
  /** Aborts the wait (Ctrl-C). */
  signal?: AbortSignal;
}

export const EXIT = { ok: 0, failed: 1, usage: 2, belowThreshold: 3, timedOut: 4, interrupted: 130 } as const;
/** With --assert or --baseline: 1 only when the message failed an assertion, 2 when nothing could be judged. */
const GATE_EXIT = { ok: 0, failed: 2, usage: 2, belowThreshold: 2, timedOut: 2, interrupted: 130 } as const;
const ASSERTION_FAILED = 1;

/** One line saying what went wrong, in the words of someone running the command. */
const describe = (error: unknown, options: CheckOptions): string => {
  if (error instanceof ApiKeyRejectedError)
    return `the service at ${options.url} refused the API key (${error.status} ${error.detail}): check --key or INBOX_PLACEMENT_API_KEY`;
  if (error instanceof NoAccountsInScopeError)
    return `the service has no test accounts for this API key's scope (${error.status} ${error.detail})`;
  if (error instanceof CheckGoneError)
    return `check ${error.checkId} is gone (${error.status} ${error.detail}): a check lasts 10 minutes and not across a restart of the service`;
  if (error instanceof ApiError) return `the service at ${options.url} answered ${error.message}`;
  if (error instanceof NetworkError)
    return `${error.message} (is the service running? --url or INBOX_PLACEMENT_URL say where)`;
  return error instanceof Error ? error.message : String(error);
};

const isAbort = (error: unknown, signal: AbortSignal | undefined) =>
  signal?.aborted === true || (error instanceof Error && error.name === 'AbortError');

const sayTo = (io: CheckIo) => (line: string) => io.stderr.write(`${line}\n`);
/** Says why the command stops, and gives its exit code. */
const failWith = (io: CheckIo) => (code: number, message: string) => {
  sayTo(io)(`check: ${message}`);
  return code;
};

interface Prepared {
  options: CheckOptions;
  smtp: SmtpTarget | undefined;
  client: InboxPlacementClient;
  baseline: SavedRun | undefined;
}

/** The command line read and checked, before anything is started: what to run, or the exit code (usage, help). */
const prepare = async (argv: string[], io: CheckIo): Promise<Prepared | number> => {
  const fail = failWith(io);
  try {
    const options = parseCheckOptions(argv, io.settings);
    if (options.help) {
      io.stdout(USAGE);
      return EXIT.ok;
    }
    const smtp = options.send && parseSmtpUrl(options.send.smtp, options.send.smtpPassword);
    const client = createClient({ baseUrl: options.url, apiKey: options.key });
    const baseline = options.gate.baselineFile ? await readBaseline(options.gate.baselineFile) : undefined;
    return { options, smtp, client, baseline };
  } catch (error) {
    if (error instanceof BaselineError) return fail(EXIT.usage, error.message);
    if (error instanceof UsageError || error instanceof SmtpUrlError || error instanceof TypeError)
      return fail(EXIT.usage, `${error.message} (see --help)`);
    throw error;
  }
};

/** Starts the check and sends the message (or prints the addresses for --no-send): the check's id and start. */
const startAndSend = async (
  { options, smtp, client }: Prepared,
  sender: ReturnType<typeof createSender> | undefined,
  io: CheckIo,
  onStarted: (checkId: string) => void,
) => {
  const say = sayTo(io);
  // Everything that can fail before the send is done before the check starts: the spec asks for the message
  // right after the addresses are handed out.
  const message: LoadedMessage | undefined = options.send && (await loadMessage(options.send.message));
  const dkim = options.send?.dkim && (await loadDkim(options.send.dkim));
  await sender?.verify();
  const started = await client.startCheck({ signal: io.signal });
  const startedAt = Date.now();
  const checkId = started.check_id;
  onStarted(checkId);
  const count = started.accounts.length;
  if (sender && message && smtp) {
    const inTo = options.send?.to === true;
    await sender.send({ ...mailFor(message, started.accounts, inTo), ...(dkim ? { dkim } : {}) });
    say(
      `check ${checkId}: sent one message to ${count} addresses (${inTo ? 'To' : 'BCC'}) through ${smtp.label}`,
    );
  } else {
    io.stdout(options.json ? JSON.stringify(started) : started.accounts.join('\n'));
    say(`check ${checkId}: send ONE message to these ${count} addresses now; waiting for it`);
  }
  return { checkId, startedAt };
};

/** Polls until the check settles; past --timeout, the last state read and `gaveUp`. */
const waitForResult = async (
  { options, client }: Prepared,
  checkId: string,
  startedAt: number,
  io: CheckIo,
): Promise<{ check: CheckView; gaveUp: boolean }> => {
  const progress = createProgress(io.stderr, checkId, startedAt);
  try {
    const check = await client.waitForCheck(checkId, {
      signal: io.signal,
      intervalMs: options.intervalMs,
      ...(options.minIntervalMs === undefined ? {} : { minIntervalMs: options.minIntervalMs }),
      timeoutMs: options.timeoutMs,
      onProgress: (current) => progress.update(current),
    });
    return { check, gaveUp: false };
  } catch (error) {
    if (!(error instanceof WaitTimeoutError) || !error.lastCheck) throw error;
    return { check: error.lastCheck, gaveUp: true };
  } finally {
    progress.stop();
  }
};

/** Why, not only where: the report is an addition of this service, so a service without it leaves the table. */
const readReport = async ({ options, client }: Prepared, checkId: string, io: CheckIo) => {
  try {
    return { report: await readReportAndAudit(client, checkId, io.signal) };
  } catch (error) {
    if (isAbort(error, io.signal)) throw error;
    return { report: null, reportFailure: describe(error, options) };
  }
};

/** Writes the --html page; the exit code when it cannot. */
const writeHtml = async (
  file: string,
  report: PlacementReport | null,
  checkId: string,
  io: CheckIo,
  failed: number,
): Promise<number | undefined> => {
  const fail = failWith(io);
  if (!report) return fail(failed, `no placement report to write to ${file}`);
  try {
    await writeFile(file, renderHtmlReport(report));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return fail(failed, `cannot write ${file}: ${reason}`);
  }
  sayTo(io)(`check ${checkId}: placement report written to ${file}`);
  return undefined;
};

/** The exit code of a check that was waited for: --timeout, the gate's verdict, the check's timeout, --min-inbox. */
const exitOf = (
  options: CheckOptions,
  result: { check: CheckView; gaveUp: boolean; verdict: GateVerdict | undefined },
  exit: typeof EXIT | typeof GATE_EXIT,
  io: CheckIo,
): number => {
  const fail = failWith(io);
  const { check, gaveUp, verdict } = result;
  const missing = check.total - check.received;
  if (gaveUp)
    return fail(
      exit.timedOut,
      `stopped waiting after ${options.timeoutMs / 1000} s (--timeout): ${missing} of ${check.total} accounts still pending`,
    );
  if (verdict?.cannotJudge) return fail(exit.failed, verdict.cannotJudge);
  if (verdict) {
    for (const failure of verdict.failures) sayTo(io)(`check: ${failure}`);
    return verdict.failures.length > 0 ? ASSERTION_FAILED : exit.ok;
  }
  if (check.status === 'timeout')
    return fail(
      EXIT.timedOut,
      `check ${check.check_id} timed out: ${missing} of ${check.total} accounts never received the message`,
    );
  const rate = inboxRate(check);
  if (options.minInbox !== undefined && rate < options.minInbox)
    return fail(
      EXIT.belowThreshold,
      `inbox rate ${percent(rate)} is below --min-inbox ${percent(options.minInbox)}`,
    );
  return EXIT.ok;
};

export const runCheck = async (argv: string[], io: CheckIo): Promise<number> => {
  const prepared = await prepare(argv, io);
  if (typeof prepared === 'number') return prepared;
  const { options } = prepared;
  const fail = failWith(io);
  const gate = { assertions: options.gate.assertions, baseline: prepared.baseline };
  const exit = isGate(gate) ? GATE_EXIT : EXIT;
  const sender = prepared.smtp && createSender(prepared.smtp);
  let checkId: string | undefined;
  try {
    const started = await startAndSend(prepared, sender, io, (id) => {
      checkId = id;
    });
    const { check, gaveUp } = await waitForResult(prepared, started.checkId, started.startedAt, io);
    const elapsedMs = Date.now() - started.startedAt;
    const { report, reportFailure } = await readReport(prepared, started.checkId, io);
    const verdict = isGate(gate) && !gaveUp ? judgeGate(gate, check, report) : undefined;
    io.stdout(
      options.json
        ? jsonReport(check, elapsedMs, report, verdict?.json)
        : [
            tableReport(check, elapsedMs),
            ...(report ? ['', reportTable(report), ...controlLines(report)] : []),
            ...(verdict?.lines ?? []),
          ].join('\n'),
    );
    if (reportFailure) sayTo(io)(`check: no placement report: ${reportFailure}`);
    if (options.htmlFile) {
      const failed = await writeHtml(options.htmlFile, report, started.checkId, io, exit.failed);
      if (failed !== undefined) return failed;
    }
    return exitOf(options, { check, gaveUp, verdict }, exit, io);
  } catch (error) {
    if (isAbort(error, io.signal))
      return fail(
        exit.interrupted,
        checkId
          ? `interrupted; check ${checkId} goes on at the service`
          : 'interrupted before a check started',
      );
    if (error instanceof WaitTimeoutError)
      return fail(exit.timedOut, `stopped waiting after ${options.timeoutMs / 1000} s (--timeout)`);
    if (error instanceof SmtpError || error instanceof MessageError) return fail(exit.failed, error.message);
    return fail(exit.failed, describe(error, options));
  } finally {
    sender?.close();
  }
};
