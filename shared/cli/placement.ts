// Owns `npm run placement -- …` (and `inbox-placement check …`): start a check, send ONE message to all its addresses,
// poll at the spec's interval until it settles, print where the message landed and exit by the inbox rate.

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
} from '../client';
import { type CliSettings, loadCliSettings } from '../config';
import { readReportAndAudit } from './placement/auditWait';
import { BaselineError, readBaseline, type SavedRun } from './placement/baseline';
import { runCompare } from './placement/compare';
import { controlLines } from './placement/controlLines';
import { type GateVerdict, isGate, judgeGate } from './placement/gate';
import { renderHtmlReport } from './placement/htmlReport';
import { type LoadedMessage, loadDkim, loadMessage, MessageError, mailFor } from './placement/message';
import {
  type CheckOptions,
  DEFAULT_TIMEOUT_S,
  DEFAULT_URL,
  parseCheckOptions,
  UsageError,
} from './placement/options';
import { createProgress, jsonReport, type ProgressStream, percent, tableReport } from './placement/output';
import { reportTable } from './placement/reportTable';

export const USAGE = `usage: npm run placement -- [options]        (or: npx inbox-placement check [options])

Starts a check, sends ONE message to all of its test addresses, polls until every account has it (or the check
times out), then prints each account's category and the inbox rate (primary and updates count as inbox), and the placement
report: per provider, per account with SPF, DKIM, DMARC and the spam filter's verdict, why each check failed and
what was not checked; then the sender audit: its score out of 10, what to fix first, the bulk-sender rules.

service:  --url URL           the service (default: $INBOX_PLACEMENT_URL, else ${DEFAULT_URL})
          --key KEY           the API key (default: $INBOX_PLACEMENT_API_KEY; prefer it: argv is visible to others)
          --insecure          allow a plain http --url to a host other than this machine (the key then crosses
                              the network in clear text); without it only https, or http to a loopback host
message:  --eml FILE          send this RFC 5322 file unchanged; the addresses go only in the envelope
                              (--from then sets only the envelope sender, default the file's From address)
      or  --from ADDR --subject S  and  --text T | --text-file F  and/or  --html-body H | --html-file F
sending:  --smtp URL          smtp://[user[:pass]@]host[:port] (default port 587; STARTTLS when offered) or
                              smtps://… (TLS, default port 465); the password may come from $SMTP_PASSWORD.
                              A login is only sent over TLS, except to a loopback host.
          --to                all addresses in To (default: all in BCC, no header names them)
          --dkim-key FILE --dkim-selector S --dkim-domain D
                              DKIM-sign the message with this PEM private key (all three together)
          --no-send           send nothing: print the addresses (one per line; with --json a first JSON line
                              {check_id, accounts}) and only wait; send ONE message to all of them at once
result:   --json              one JSON object on stdout instead of the tables:
                              {check_id, status, received, total, inbox_rate, results, elapsed_ms, report,
                              look_first: where the message went to spam, what to look at first beside the control,
                              coverage: what the receivers checked and what they did not}; the audit is report.audit
          --html FILE         also write the placement report as one self-contained HTML page
          --min-inbox R       exit 3 when the inbox rate is below R (0 to 1, or a percentage such as 80%)
gate:     --assert EXPR       repeatable; each must hold, e.g. 'gmail.inbox >= 0.8', 'outlook.spam == 0',
                              'auth.dkim == pass', 'inbox_rate >= 0.9', 'seconds_to_deliver.p95 <= 60',
                              'no_regression' (with --baseline); a wrong one lists the accepted forms
          --baseline FILE     a saved --json of an earlier run: print what changed since (placement per
                              provider, authentication, spam verdicts)
          --interval D        time between polls, 5s to 15s as the spec asks (default 5s)
          --timeout D         stop waiting after D (default ${DEFAULT_TIMEOUT_S}s; the service times a check out
                              after 5 minutes); every duration is a number and a unit: 500ms, 30s, 5m, 90d
testing:  --poll D            poll every D, even below the spec's 5s (e.g. 200ms): a testing aid for a local
                              service only (--poll-ms N, its 1.0 spelling, still works with a warning)
          -h, --help          this text

Progress goes to stderr (one live line on a terminal); results go to stdout.

exit:     0 done (inbox rate at or above --min-inbox, if given)
          1 failed: service unreachable, API key refused, no test accounts, SMTP refusal, unreadable file, …
          2 wrong command line
          3 inbox rate below --min-inbox
          4 timed out: some account never received the message (checked before --min-inbox), or --timeout passed
          130 interrupted (Ctrl-C); the check goes on at the service
  with --assert or --baseline, instead:
          0 every assertion held   1 one failed (each printed with its value), or the check timed out
          2 wrong command line, or any error that left nothing to judge (service, SMTP, --timeout, …)`;

export interface CheckIo {
  /** What the environment says (service URL, API key, SMTP password), read once by the caller. */
  settings: CliSettings;
  stdout: (text: string) => void;
  stderr: ProgressStream;
  /** Aborts the wait (Ctrl-C). */
  signal?: AbortSignal;
}

const EXIT = { ok: 0, failed: 1, usage: 2, belowThreshold: 3, timedOut: 4, interrupted: 130 } as const;
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

export const runCheck = async (argv: string[], io: CheckIo): Promise<number> => {
  const say = (line: string) => io.stderr.write(`${line}\n`);
  const fail = (code: number, message: string) => {
    say(`check: ${message}`);
    return code;
  };

  let options: CheckOptions;
  let smtp: SmtpTarget | undefined;
  let client: InboxPlacementClient;
  let baseline: SavedRun | undefined;
  try {
    options = parseCheckOptions(argv, io.settings);
    if (options.help) {
      io.stdout(USAGE);
      return EXIT.ok;
    }
    smtp = options.send && parseSmtpUrl(options.send.smtp, options.send.smtpPassword);
    client = createClient({ baseUrl: options.url, apiKey: options.key });
    if (options.gate.baselineFile) baseline = await readBaseline(options.gate.baselineFile);
  } catch (error) {
    if (error instanceof BaselineError) return fail(EXIT.usage, error.message);
    if (error instanceof UsageError || error instanceof SmtpUrlError || error instanceof TypeError)
      return fail(EXIT.usage, `${error.message} (see --help)`);
    throw error;
  }

  const gate = { assertions: options.gate.assertions, baseline };
  const exit = isGate(gate) ? GATE_EXIT : EXIT;
  const sender = smtp && createSender(smtp);
  let checkId: string | undefined;
  try {
    // Everything that can fail before the send is done before the check starts: the spec asks for the message
    // right after the addresses are handed out.
    const message: LoadedMessage | undefined = options.send && (await loadMessage(options.send.message));
    const dkim = options.send?.dkim && (await loadDkim(options.send.dkim));
    await sender?.verify();
    const started = await client.startCheck({ signal: io.signal });
    const startedAt = Date.now();
    checkId = started.check_id;
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

    const progress = createProgress(io.stderr, checkId, startedAt);
    let check: CheckView;
    let gaveUp = false;
    try {
      check = await client.waitForCheck(checkId, {
        signal: io.signal,
        intervalMs: options.intervalMs,
        ...(options.minIntervalMs === undefined ? {} : { minIntervalMs: options.minIntervalMs }),
        timeoutMs: options.timeoutMs,
        onProgress: (current) => progress.update(current),
      });
    } catch (error) {
      if (!(error instanceof WaitTimeoutError) || !error.lastCheck) throw error;
      check = error.lastCheck;
      gaveUp = true;
    } finally {
      progress.stop();
    }

    const elapsedMs = Date.now() - startedAt;
    // Why, not only where: the report is an addition of this service, so a service without it leaves the table.
    let report: PlacementReport | null = null;
    let reportFailure: string | undefined;
    try {
      report = await readReportAndAudit(client, checkId, io.signal);
    } catch (error) {
      if (isAbort(error, io.signal)) throw error;
      reportFailure = describe(error, options);
    }
    const verdict: GateVerdict | undefined =
      isGate(gate) && !gaveUp ? judgeGate(gate, check, report) : undefined;
    io.stdout(
      options.json
        ? jsonReport(check, elapsedMs, report, verdict?.json)
        : [
            tableReport(check, elapsedMs),
            ...(report ? ['', reportTable(report), ...controlLines(report)] : []),
            ...(verdict?.lines ?? []),
          ].join('\n'),
    );
    if (reportFailure) say(`check: no placement report: ${reportFailure}`);
    if (options.htmlFile) {
      if (!report) return fail(exit.failed, `no placement report to write to ${options.htmlFile}`);
      try {
        await writeFile(options.htmlFile, renderHtmlReport(report));
      } catch (error) {
        const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        return fail(exit.failed, `cannot write ${options.htmlFile}: ${reason}`);
      }
      say(`check ${checkId}: placement report written to ${options.htmlFile}`);
    }
    const missing = check.total - check.received;
    if (gaveUp)
      return fail(
        exit.timedOut,
        `stopped waiting after ${options.timeoutMs / 1000} s (--timeout): ${missing} of ${check.total} accounts still pending`,
      );
    if (verdict?.cannotJudge) return fail(exit.failed, verdict.cannotJudge);
    if (verdict) {
      for (const failure of verdict.failures) say(`check: ${failure}`);
      return verdict.failures.length > 0 ? ASSERTION_FAILED : exit.ok;
    }
    if (check.status === 'timeout')
      return fail(
        EXIT.timedOut,
        `check ${checkId} timed out: ${missing} of ${check.total} accounts never received the message`,
      );
    const rate = inboxRate(check);
    if (options.minInbox !== undefined && rate < options.minInbox)
      return fail(
        EXIT.belowThreshold,
        `inbox rate ${percent(rate)} is below --min-inbox ${percent(options.minInbox)}`,
      );
    return EXIT.ok;
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

/** Runs the command as a process: Ctrl-C aborts the wait, the exit code is the command's. */
export const main = async (argv: string[]): Promise<never> => {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  if (argv[0] === 'compare') {
    const compared = await runCompare(argv.slice(1), {
      settings: loadCliSettings(),
      stdout: (text) => process.stdout.write(`${text}\n`),
      stderr: (text) => process.stderr.write(text),
      signal: controller.signal,
    });
    process.exit(compared);
  }
  const code = await runCheck(argv, {
    settings: loadCliSettings(),
    stdout: (text) => process.stdout.write(`${text}\n`),
    stderr: process.stderr,
    signal: controller.signal,
  }).catch((error: unknown) => {
    process.stderr.write(`check: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.failed;
  });
  process.exit(code);
};

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) await main(process.argv.slice(2));
