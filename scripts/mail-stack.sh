#!/usr/bin/env bash
# Owns the loopback integration-test mail stack: Postfix -> Dovecot LMTP+Sieve -> Maildir/IMAP, plus spamd.
#
# Usage: scripts/mail-stack.sh start|stop|status|missing
#
# The Debian packages are installed by `npm run system-packages -- install` (scripts/system-parts.ts), which asks
# `missing` whether any binary below is absent; `npm test` does it first.
#
#   SMTP  (Postfix)        127.0.0.1:2525   mail for @mail.test, no auth from loopback
#   submission (Postfix)   127.0.0.1:2587   SMTP AUTH required (Dovecot SASL, the IMAP passwords), no TLS
#   IMAP  (Dovecot)        127.0.0.1:1143   plaintext, password "secret" for every account but oauth@
#   IMAPS (Dovecot)        127.0.0.2:1993   implicit TLS, the same accounts; certificate from the stack's test CA
#   LMTP  (auth-filter)    127.0.0.1:2426   Postfix -> auth-filter -> Dovecot, one recipient per transaction
#   LMTP  (Dovecot)        127.0.0.1:2424
#   spamd (SpamAssassin)   127.0.0.1:7830   called from junk@'s Sieve script via spamc
#
# Authentication: auth-filter (scripts/mail-stack/authFilter.ts, a long-running Node process with mailauth) checks
# SPF, DKIM and DMARC against the test DNS of scripts/lib/testZones.ts (nothing else resolves, no internet), drops
# any Authentication-Results claiming "mail.test" that the sender wrote, and prepends its own, authserv-id mail.test.
# sender.test publishes SPF ip4:127.0.0.1, DMARC p=reject and the DKIM key s1 (private half:
# test/fixtures/dkim/sender.test.s1.key).
#
# OAuth2: oauth@mail.test has no password; it logs in with AUTHENTICATE XOAUTH2 or OAUTHBEARER only. Dovecot
# checks each access token at an RFC 7662 introspection endpoint that the stack does NOT run: whoever tests
# OAuth2 serves it (test/support/oauthServer.ts), on a fixed address because Dovecot's config is written here:
#   token introspection    http://127.0.0.1:9931/introspect   (POST token=…; {"active":true,"username":…})
#   token endpoint         http://127.0.0.1:9931/token        (accounts.json points the account's grant there)
# With nothing listening there, OAuth2 logins fail as a temporary error; password logins are unaffected.
#
# TLS: `start` makes a test CA and a server certificate (IP SANs 127.0.0.1 and 127.0.0.2, DNS localhost) with the
# openssl CLI into $D/etc/tls; a client trusts the stack's IMAPS by trusting $D/etc/tls/ca.pem (the CA's key is
# deleted once it has signed). IMAPS listens on an address of its own because Dovecot's TLS settings are chosen
# by local address, not port: 127.0.0.1 keeps ssl = no, so the plain port offers no STARTTLS that a client
# would take up by default and then fail to verify.
#
# Runtime state lives in ${MAILSTACK_DIR:-<repo>/.mailstack}; `start` wipes it and
# writes accounts.json there. MAILSTACK_EXTRA_USERS=N (default 2) adds user001..userNNN.
# Needs root (Dovecot must switch to the mail user, Postfix to "postfix").
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$SCRIPT_DIR/.." && pwd)"
TEMPLATE_DIR="$SCRIPT_DIR/mail-stack"
D="${MAILSTACK_DIR:-$REPO_DIR/.mailstack}"
EXTRA_USERS="${MAILSTACK_EXTRA_USERS:-2}"

HOST=127.0.0.1
SMTP_PORT=2525
SUBMISSION_PORT=2587
IMAP_PORT=1143
TLS_HOST=127.0.0.2
IMAPS_PORT=1993
LMTP_PORT=2424
AUTH_PORT=2426
AUTHSERV_ID=mail.test
SPAMD_PORT=7830
OAUTH_PORT=9931
DOMAIN=mail.test
PASSWORD=secret
# Filtering accounts: name -> Sieve script in $TEMPLATE_DIR/sieve ("" = none).
FIXED_ACCOUNTS=(inbox junk trash promo archive)
declare -A SIEVE_OF=([inbox]="" [junk]=junk [trash]=trash [promo]=promo [archive]=archive)
# OAuth2-only accounts: in Dovecot's userdb (for delivery) but not in its password passdb.
OAUTH_ACCOUNTS=(oauth)
# The grant accounts.json gives them; the test's token endpoint knows this client and first refresh token.
OAUTH_CLIENT_ID=test-client
OAUTH_CLIENT_SECRET=test-secret
OAUTH_REFRESH_TOKEN=refresh-0
START_TIMEOUT=30

PF_DIR="$D/etc/postfix"
DC_CONF="$D/etc/dovecot/dovecot.conf"
SPAMD_PID="$D/run/spamd/spamd.pid"
AUTH_PID="$D/run/auth-filter.pid"
LOG_DIR="$D/log"

MAIL_USER=nobody
MAIL_GROUP=nogroup

die() { echo "mail-stack: $*" >&2; exit 1; }
log() { echo "mail-stack: $*"; }

need_root() { [[ $(id -u) -eq 0 ]] || die "must run as root (Dovecot/Postfix switch users)"; }

check_dir() {
  [[ -n "$D" && "$D" == /* ]] || die "MAILSTACK_DIR must be an absolute path (got '$D')"
  # Dovecot/Postfix config syntax and sed templating don't tolerate these.
  [[ "$D" != *[[:space:]\|\&\\]* ]] || die "MAILSTACK_DIR must not contain spaces, '|', '&' or '\\': $D"
  # Unix socket paths are limited to 107 bytes; the deepest (Dovecot's
  # run/dovecot/token-login/imap-urlauth) is 37 below MAILSTACK_DIR.
  (( ${#D} <= 68 )) || die "MAILSTACK_DIR is too long for unix socket paths (${#D} > 68 chars), set e.g. MAILSTACK_DIR=/tmp/mailstack: $D"
  [[ "$EXTRA_USERS" =~ ^[0-9]+$ ]] || die "MAILSTACK_EXTRA_USERS must be a number (got '$EXTRA_USERS')"
}

# start/stop must not interleave (e.g. CI and a test runner both calling start).
take_lock() {
  mkdir -p "$D"
  exec 9>"$D/.lock"
  flock -w 120 9 || die "timed out waiting for $D/.lock"
}

REQUIRED_BINARIES=(
  /usr/sbin/postfix /usr/sbin/postconf
  /usr/sbin/dovecot /usr/bin/doveadm /usr/lib/dovecot/imap /usr/lib/dovecot/lmtp
  /usr/lib/dovecot/modules/lib90_sieve_plugin.so
  /usr/lib/dovecot/modules/sieve/lib90_sieve_extprograms_plugin.so
  /usr/bin/sievec /usr/sbin/spamd /usr/bin/spamc /usr/bin/script /usr/bin/flock
)
# auth-filter runs on the project's own Node and node_modules (mailauth, smtp-server), found from here.
NODE_BIN="$(command -v node || true)"

missing_binaries() { # space-separated, empty when all present
  local b missing=()
  for b in "${REQUIRED_BINARIES[@]}"; do [[ -e "$b" ]] || missing+=("$b"); done
  echo "${missing[*]}"
}

port_open() { (exec 3<>"/dev/tcp/${2:-$HOST}/$1") 2>/dev/null; }

# spamd's port opens before it can answer; PING proves it scans.
spamd_ready() { spamc -d "$HOST" -p "$SPAMD_PORT" -K >/dev/null 2>&1; }

service_up() { # name port
  if [[ $1 == spamd ]]; then spamd_ready; elif [[ $1 == imaps ]]; then port_open "$2" "$TLS_HOST"; else port_open "$2"; fi
}

# A zombie still answers kill -0; PID 1 in containers doesn't always reap.
pid_alive() {
  [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null &&
    [[ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]]
}

read_pid() { if [[ -s "$1" ]]; then tr -dc '0-9' <"$1"; fi; }

# `postfix start` was reported to fail without a controlling terminal (CI,
# vitest); script(1) gives it a private pty, harmless when none is needed.
postfix_cmd() { script -qec "postfix -c $PF_DIR $*" /dev/null </dev/null; }

# ---------------------------------------------------------------- rendering

render() { # template -> destination
  sed -e "s|@DIR@|$D|g" -e "s|@SMTP_PORT@|$SMTP_PORT|g" -e "s|@IMAP_PORT@|$IMAP_PORT|g" \
      -e "s|@LMTP_PORT@|$LMTP_PORT|g" -e "s|@SPAMD_PORT@|$SPAMD_PORT|g" -e "s|@OAUTH_PORT@|$OAUTH_PORT|g" \
      -e "s|@AUTH_PORT@|$AUTH_PORT|g" -e "s|@SUBMISSION_PORT@|$SUBMISSION_PORT|g" \
      -e "s|@TLS_HOST@|$TLS_HOST|g" -e "s|@IMAPS_PORT@|$IMAPS_PORT|g" "$1" >"$2"
}

# A test CA and the server certificate it signs, made fresh at each start; only ca.pem is for clients.
write_tls() {
  local dir="$D/etc/tls"
  mkdir -p "$dir"
  (
    umask 077
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/ca.key" 2>/dev/null
    openssl req -x509 -new -key "$dir/ca.key" -sha256 -days 30 -subj "/CN=inbox-placement mail stack test CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -out "$dir/ca.pem" 2>/dev/null
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/server.key" 2>/dev/null
    openssl req -new -key "$dir/server.key" -subj "/CN=localhost" -out "$dir/server.csr" 2>/dev/null
    printf '%s\n' "subjectAltName=IP:127.0.0.1,IP:$TLS_HOST,DNS:localhost" "basicConstraints=critical,CA:FALSE" \
      "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" >"$dir/server.ext"
    openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 30 \
      -sha256 -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null
  ) || die "openssl could not make the stack's test certificates"
  rm -f "$dir/ca.key" "$dir/ca.srl" "$dir/server.csr" "$dir/server.ext"
  chmod 644 "$dir/ca.pem" "$dir/server.pem"
}

account_names() {
  printf '%s\n' "${FIXED_ACCOUNTS[@]}"
  local i
  for ((i = 1; i <= EXTRA_USERS; i++)); do printf 'user%03d\n' "$i"; done
}

write_config() {
  local uid gid name sieve extra
  uid=$(id -u "$MAIL_USER"); gid=$(getent group "$MAIL_GROUP" | cut -d: -f3)

  mkdir -p "$PF_DIR" "$D/etc/dovecot" "$D/etc/sieve-bin" "$D/etc/spamassassin" \
           "$D/sieve" "$D/mail/$DOMAIN" "$D/run" "$D/lib/spamd" "$D/run/spamd" \
           "$D/lib/postfix" "$D/spool/postfix" "$LOG_DIR"
  # Postfix's own sanity checks want data_directory owned by mail_owner.
  chown postfix "$D/lib/postfix"; chmod 700 "$D/lib/postfix"

  render "$TEMPLATE_DIR/postfix-main.cf" "$PF_DIR/main.cf"
  render "$TEMPLATE_DIR/postfix-master.cf" "$PF_DIR/master.cf"
  render "$TEMPLATE_DIR/dovecot.conf" "$DC_CONF"
  write_tls
  render "$TEMPLATE_DIR/dovecot-oauth2.conf.ext" "$D/etc/dovecot/dovecot-oauth2.conf.ext"
  render "$TEMPLATE_DIR/sieve-filter-spamc" "$D/etc/sieve-bin/spamc"
  chmod 755 "$D/etc/sieve-bin/spamc"

  # Keep the distro's plugin loading (*.pre) but replace local.cf with ours.
  cp /etc/spamassassin/*.pre "$D/etc/spamassassin/"
  cp "$TEMPLATE_DIR/spamassassin-local.cf" "$D/etc/spamassassin/local.cf"

  : >"$D/etc/dovecot/users"
  : >"$PF_DIR/vmailbox"
  while read -r name; do
    sieve=${SIEVE_OF[$name]:-}
    extra=""
    if [[ -n "$sieve" ]]; then
      cp "$TEMPLATE_DIR/sieve/$sieve.sieve" "$D/sieve/$sieve.sieve"
      extra="userdb_sieve=file:$D/sieve/$sieve.sieve"
    fi
    # user:password:uid:gid:gecos:home:shell:extra_fields
    echo "$name@$DOMAIN:{PLAIN}$PASSWORD:$uid:$gid::$D/mail/$DOMAIN/$name::$extra" >>"$D/etc/dovecot/users"
    echo "$name@$DOMAIN OK" >>"$PF_DIR/vmailbox"
  done < <(account_names)
  # No password field at all: the password passdb never sees these accounts, only the oauth2 one does.
  : >"$D/etc/dovecot/oauth-users"
  for name in "${OAUTH_ACCOUNTS[@]}"; do
    echo "$name@$DOMAIN::$uid:$gid::$D/mail/$DOMAIN/$name::" >>"$D/etc/dovecot/oauth-users"
    echo "$name@$DOMAIN OK" >>"$PF_DIR/vmailbox"
  done
  chmod 644 "$D/etc/dovecot/users" "$D/etc/dovecot/oauth-users"

  # Compile now so a broken script fails `start` instead of a delivery.
  local s
  for s in "$D"/sieve/*.sieve; do
    sievec -c "$DC_CONF" "$s" || die "sievec failed for $s"
  done

  chown -R "$MAIL_USER:$MAIL_GROUP" "$D/mail" "$D/sieve" "$D/lib/spamd" "$D/run/spamd"
}

write_accounts_json() {
  local name first=1 out="$D/accounts.json"
  {
    echo "["
    while read -r name; do
      ((first)) || echo ","
      first=0
      local email="$name@$DOMAIN" filters='[]'
      # The stack's auth filter writes Authentication-Results as mail.test for every account; only junk@'s Sieve
      # runs SpamAssassin, so only junk@ trusts an X-Spam-Status (anywhere else one would be the sender's).
      [[ $name == junk ]] && filters='["spamassassin"]'
      printf '  {"email":"%s","provider":"imap","scope":"default","active":true,"imap":{"host":"%s","port":%d,"secure":false},"auth":{"user":"%s","pass":"%s"},"folders":{"Promotions":"promotions"},"authservIds":["%s"],"spamFilters":%s}' \
        "$email" "$HOST" "$IMAP_PORT" "$email" "$PASSWORD" "$DOMAIN" "$filters"
    done < <(account_names)
    for name in "${OAUTH_ACCOUNTS[@]}"; do
      local email="$name@$DOMAIN"
      printf ',\n  {"email":"%s","provider":"imap","scope":"default","active":true,"imap":{"host":"%s","port":%d,"secure":false},"auth":{"user":"%s","oauth2":{"clientId":"%s","clientSecret":"%s","refreshToken":"%s","tokenEndpoint":"http://%s:%d/token"}},"folders":{"Promotions":"promotions"},"authservIds":["%s"],"spamFilters":[]}' \
        "$email" "$HOST" "$IMAP_PORT" "$email" "$OAUTH_CLIENT_ID" "$OAUTH_CLIENT_SECRET" "$OAUTH_REFRESH_TOKEN" "$HOST" "$OAUTH_PORT" "$DOMAIN"
    done
    echo
    echo "]"
  } >"$out.tmp"
  mv "$out.tmp" "$out"
}

# ---------------------------------------------------------------- start/stop

# Daemons must not inherit fd 9, or they would hold the lock forever.
start_daemons() {
  # spamd takes the longest (rule compilation), so it goes first.
  spamd --daemonize --listen="$HOST:$SPAMD_PORT" --allowed-ips=127.0.0.1 \
    --username="$MAIL_USER" --groupname="$MAIL_GROUP" --nouser-config \
    --configpath=/usr/share/spamassassin --siteconfigpath="$D/etc/spamassassin" \
    --helper-home-dir="$D/lib/spamd" --pidfile="$SPAMD_PID" \
    --syslog="$LOG_DIR/spamd.log" --min-children=1 --max-children=3 \
    </dev/null >>"$LOG_DIR/spamd.log" 2>&1 9>&- || die_with_log "spamd failed to start" spamd.log

  dovecot -c "$DC_CONF" </dev/null >>"$LOG_DIR/dovecot.log" 2>&1 9>&- \
    || die_with_log "dovecot failed to start" dovecot.log

  # Between Postfix and Dovecot: up before Postfix hands it mail. Its own session, so a Ctrl-C of the caller
  # leaves it to `stop`, like the other daemons.
  # It writes its own pid file once it listens (setsid may fork, so $! would not be its pid).
  (cd "$REPO_DIR" && exec setsid "$NODE_BIN" --import tsx "$TEMPLATE_DIR/authFilter.ts" --listen "$AUTH_PORT" \
    --deliver "$LMTP_PORT" --authserv-id "$AUTHSERV_ID" --pid-file "$AUTH_PID") \
    </dev/null >>"$LOG_DIR/auth-filter.log" 2>&1 9>&- &

  postfix_cmd start >>"$LOG_DIR/postfix-start.log" 2>&1 9>&- \
    || die_with_log "postfix failed to start" postfix-start.log postfix.log
}

die_with_log() { # message logfile...
  local msg=$1 f; shift
  echo "mail-stack: $msg" >&2
  for f in "$@"; do
    [[ -f "$LOG_DIR/$f" ]] || continue
    echo "---- last lines of $LOG_DIR/$f ----" >&2
    tail -n 25 "$LOG_DIR/$f" >&2
  done
  # Don't leave half a stack holding the ports; logs stay for inspection.
  stop_daemons >/dev/null 2>&1 || true
  exit 1
}

wait_ports_up() {
  local deadline=$((SECONDS + START_TIMEOUT)) svc name port logs
  for svc in "spamd:$SPAMD_PORT:spamd.log" "imap:$IMAP_PORT:dovecot.log" "imaps:$IMAPS_PORT:dovecot.log" \
             "lmtp:$LMTP_PORT:dovecot.log" "auth-filter:$AUTH_PORT:auth-filter.log" \
             "smtp:$SMTP_PORT:postfix.log" "submission:$SUBMISSION_PORT:postfix.log"; do
    IFS=: read -r name port logs <<<"$svc"
    until service_up "$name" "$port"; do
      ((SECONDS < deadline)) || die_with_log "$name did not listen on $HOST:$port within ${START_TIMEOUT}s" "$logs"
      sleep 0.2
    done
  done
}

# Our daemons: by pid file, plus whatever listens on our ports (covers $D
# having been wiped under running daemons). Only masters: their children exit
# on their own once the master is gone.
stack_pids() {
  local p pid
  for p in "$D/run/dovecot/master.pid" "$D/spool/postfix/pid/master.pid" "$SPAMD_PID" "$AUTH_PID"; do
    pid=$(read_pid "$p")
    if pid_alive "$pid"; then echo "$pid"; fi
  done
  for pid in $(ports_in_use | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u); do
    if [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" =~ ^(dovecot|master|spamd|node)$ ]]; then echo "$pid"; fi
  done
}

stop_daemons() {
  local deadline
  if [[ -f "$PF_DIR/main.cf" ]] && pid_alive "$(read_pid "$D/spool/postfix/pid/master.pid")"; then
    postfix_cmd stop >>"$LOG_DIR/postfix-start.log" 2>&1 9>&- || true
  fi
  local -a pids
  mapfile -t pids < <(stack_pids | sort -u)
  if ((${#pids[@]})); then kill -TERM "${pids[@]}" 2>/dev/null || true; fi

  deadline=$((SECONDS + 15))
  while mapfile -t pids < <(stack_pids | sort -u); ((${#pids[@]})); do
    if ((SECONDS >= deadline)); then
      log "force-killing ${pids[*]}"
      kill -KILL "${pids[@]}" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.2
  done
  # Worker processes (imap-login, smtpd) may hold listeners a moment longer.
  deadline=$((SECONDS + 5))
  while any_port_open; do
    if ((SECONDS >= deadline)); then
      echo "mail-stack: ports still in use after stop: $(ports_in_use | tr '\n' ';')" >&2
      return 1
    fi
    sleep 0.2
  done
}

any_port_open() {
  local p
  for p in $SMTP_PORT $SUBMISSION_PORT $IMAP_PORT $LMTP_PORT $SPAMD_PORT $AUTH_PORT; do port_open "$p" && return 0; done
  port_open "$IMAPS_PORT" "$TLS_HOST" && return 0
  return 1
}

ports_in_use() { ss -ltnpH "( sport = :$SMTP_PORT or sport = :$SUBMISSION_PORT or sport = :$IMAP_PORT or sport = :$IMAPS_PORT or sport = :$LMTP_PORT or sport = :$SPAMD_PORT or sport = :$AUTH_PORT )" 2>/dev/null; }

wipe_runtime() {
  # Only the subdirectories we create, so a mistaken MAILSTACK_DIR can't eat a tree.
  local sub
  for sub in etc run lib spool mail sieve log accounts.json; do rm -rf "${D:?}/$sub"; done
}

cmd_start() {
  need_root
  local missing t0=$SECONDS
  missing="$(missing_binaries)"
  [[ -z "$missing" ]] || die "missing $missing; run: npm run system-packages -- install (as root)"
  [[ -n "$NODE_BIN" && -d "$REPO_DIR/node_modules/mailauth" ]] || die "auth-filter needs node and node_modules: run npm ci"
  take_lock
  stop_daemons || die "cannot start: something else is listening on our ports"
  wipe_runtime
  write_config
  start_daemons
  wait_ports_up
  write_accounts_json
  log "smtp  up on $HOST:$SMTP_PORT (postfix, log $LOG_DIR/postfix.log)"
  log "submission up on $HOST:$SUBMISSION_PORT (postfix, SMTP AUTH through dovecot)"
  log "imap  up on $HOST:$IMAP_PORT (dovecot, log $LOG_DIR/dovecot.log)"
  log "imaps up on $TLS_HOST:$IMAPS_PORT (dovecot, implicit TLS, CA $D/etc/tls/ca.pem)"
  log "lmtp  up on $HOST:$LMTP_PORT (dovecot)"
  log "auth  up on $HOST:$AUTH_PORT (auth-filter, authserv-id $AUTHSERV_ID, log $LOG_DIR/auth-filter.log)"
  log "spamd up on $HOST:$SPAMD_PORT (log $LOG_DIR/spamd.log)"
  log "oauth2 introspection expected at http://$HOST:$OAUTH_PORT/introspect (served by the OAuth2 tests)"
  log "accounts: $D/accounts.json ($((${#FIXED_ACCOUNTS[@]} + EXTRA_USERS + ${#OAUTH_ACCOUNTS[@]})) accounts), started in $((SECONDS - t0))s"
}

cmd_stop() {
  need_root
  if [[ ! -d "$D" ]] && ! any_port_open; then log "not running"; return 0; fi
  take_lock
  stop_daemons || exit 1
  log "stopped"
}

cmd_status() {
  local down=0 svc name port
  for svc in "smtp:$SMTP_PORT" "submission:$SUBMISSION_PORT" "imap:$IMAP_PORT" "imaps:$IMAPS_PORT" "lmtp:$LMTP_PORT" "auth:$AUTH_PORT" "spamd:$SPAMD_PORT"; do
    IFS=: read -r name port <<<"$svc"
    if service_up "$name" "$port"; then
      printf '%-10s up    %s:%s\n' "$name" "$HOST" "$port"
    else
      printf '%-10s DOWN  %s:%s\n' "$name" "$HOST" "$port"
      down=1
    fi
  done
  return "$down"
}

# Dovecot alone goes away and comes back, as in a provider's restart: every IMAP session is cut, Postfix keeps
# accepting mail and defers it (LMTP refused) until Dovecot is back, then the queue is flushed into the mailboxes.
cmd_dovecot_stop() {
  doveadm -c "$DC_CONF" stop >>"$LOG_DIR/dovecot.log" 2>&1 || true
  local deadline=$((SECONDS + 15))
  while service_up imap "$IMAP_PORT" || service_up imaps "$IMAPS_PORT" || service_up lmtp "$LMTP_PORT"; do
    ((SECONDS < deadline)) || die "dovecot still listening 15 s after doveadm stop"
    sleep 0.1
  done
  # An imap process outlives its master and keeps serving the session it holds; a provider's restart cuts every
  # session, so the ones still open on our IMAP port (this network namespace's) are ended too.
  local -a held
  mapfile -t held < <(ss -tnpH state established "( sport = :$IMAP_PORT or sport = :$IMAPS_PORT )" 2>/dev/null |
    grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u)
  if ((${#held[@]})); then kill -TERM "${held[@]}" 2>/dev/null || true; fi
  log "dovecot down"
}

cmd_dovecot_start() {
  # Idempotent: a caller that only wants Dovecot up (a test's clean-up) must not turn a running Dovecot into a
  # failed start, whose clean-up would stop the whole stack under the suites that share it.
  if service_up imap "$IMAP_PORT" && service_up lmtp "$LMTP_PORT"; then
    log "dovecot already up"
    return 0
  fi
  dovecot -c "$DC_CONF" </dev/null >>"$LOG_DIR/dovecot.log" 2>&1 9>&- || die_with_log "dovecot failed to start" dovecot.log
  local deadline=$((SECONDS + START_TIMEOUT))
  until service_up imap "$IMAP_PORT" && service_up imaps "$IMAPS_PORT" && service_up lmtp "$LMTP_PORT"; do
    ((SECONDS < deadline)) || die_with_log "dovecot did not come back" dovecot.log
    sleep 0.1
  done
  script -qec "postqueue -c $PF_DIR -f" /dev/null </dev/null >>"$LOG_DIR/postfix-start.log" 2>&1 || true
  log "dovecot up; postfix queue flushed"
}

case "${1:-}" in
  missing) missing_binaries ;;
  start) check_dir; cmd_start ;;
  stop) check_dir; cmd_stop ;;
  status) check_dir; cmd_status ;;
  dovecot-stop) check_dir; cmd_dovecot_stop ;;
  dovecot-start) check_dir; cmd_dovecot_start ;;
  *) echo "usage: $0 start|stop|status|missing|dovecot-stop|dovecot-start" >&2; exit 2 ;;
esac
