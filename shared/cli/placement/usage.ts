// Owns the check command's --help text.
import { DEFAULT_URL } from './options';
import { DEFAULT_TIMEOUT_S } from './polling';

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
