// The deploy probe's sweep at the protocol level: the real Scanner, ImapConnector and imapflow against the scripted
// IMAP server. It logs in, lists, fetches and attributes the newest header blocks of each folder (however old: no
// lookback, no live cursor), records only in its own memory and logs out; a refused login or a mailbox without an
// inbox fails it; no account is `not-checked`, never a pass. Inside the new version's probe (scanProbe.ts), over the
// table's real lease, the probe lease is held for the sweep and given back, and one heartbeat goes out.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FAST_TIMEOUTS } from '../../scripts/lib/loopbackTimeouts';
import { StaticCredentialSource } from '../../scripts/lib/StaticCredentialSource';
import { type ScriptedFolder, startScriptedImap } from '../../scripts/lib/scriptedImapServer';
import { DynamoLease } from '../../shared/adapters/dynamo/DynamoLease';
import { ImapConnector } from '../../shared/adapters/imap/ImapConnector';
import { createMetrics, emitNow } from '../../shared/adapters/telemetry/powertools';
import { PROBE_LEASE, probeScanner } from '../../shared/composition/scanProbe';
import { newCheckId } from '../../shared/domain/checkId';
import { systemClock } from '../../shared/domain/clock';
import { createLogger } from '../../shared/log';
import { PROBE_REREAD_UIDS, sweepOneAccount } from '../../shared/scanner/probeSweep';
import { cleanupsAfterEach } from '../support/cleanups';
import { DOVECOT_LIKE, SEED, seedCredentials, seedMessage } from '../support/scriptedSeed';
import { startTestService } from '../support/testService';

const cleanups = cleanupsAfterEach();
const log = createLogger('test-probe', 'error', () => undefined);
const INBOX_MESSAGES = 12;

const DAY = 24 * 3600 * 1000;

/** INBOX with a dozen messages (one tagged for a live check), Junk with two delivered three days ago. */
const mailbox = (): ScriptedFolder[] => {
  const now = Date.now();
  const live = newCheckId();
  return [
    {
      path: 'INBOX',
      attributes: ['\\HasNoChildren'],
      uidValidity: 7,
      messages: Array.from({ length: INBOX_MESSAGES }, (_, i) =>
        seedMessage(i + 1, now, i === 10 ? live : undefined),
      ),
    },
    {
      path: 'Junk',
      attributes: ['\\HasNoChildren', '\\Junk'],
      uidValidity: 9,
      messages: [1, 2].map((uid) => seedMessage(uid, now - 3 * DAY)),
    },
  ];
};

const serve = async (folders: ScriptedFolder[]) => {
  const server = await startScriptedImap({ ...DOVECOT_LIKE, folders });
  cleanups.push(() => server.close());
  return server;
};

const depsFor = (server: { host: string; port: number }, pass?: string) => {
  const credentials = seedCredentials(server);
  if (pass !== undefined) credentials.auth = { user: SEED, pass };
  return {
    deps: {
      connector: new ImapConnector(log, FAST_TIMEOUTS),
      credentials: new StaticCredentialSource(new Map([[SEED, credentials]])),
      clock: systemClock,
      log,
    },
  };
};

describe('the deploy probe sweep', () => {
  it('reads the newest messages of each folder, however old, in one fetch a folder, and logs out', async () => {
    const server = await serve(mailbox());
    const { deps } = depsFor(server);

    const outcome = await sweepOneAccount(deps, SEED);

    expect(outcome).toMatchObject({ status: 'passed', account: SEED, folders: 2 });
    // INBOX's newest five, and both of Junk though three days old (no first sight's ten-minute window).
    expect(outcome.messages).toBe(PROBE_REREAD_UIDS + 2);
    const fetches = server.commands.filter((command) => /^UID FETCH\b/i.test(command));
    expect(fetches.map((command) => command.split(' ')[2])).toEqual(['8:12', '1:2']);
    expect(server.commands.some((command) => /\bSEARCH\b/i.test(command))).toBe(false);
    expect(server.commands.at(-1)).toMatch(/^LOGOUT\b/i);
  });

  it('fails a refused login with one capped line, and never says the password', async () => {
    const server = await serve(mailbox());
    const { deps } = depsFor(server, 'not-the-password');
    const outcome = await sweepOneAccount(deps, SEED);
    expect(outcome.status).toBe('failed');
    expect(outcome.reason.length).toBeLessThanOrEqual(200);
    expect(outcome.reason).not.toMatch(/\n|not-the-password/);
    expect(outcome.reason).not.toBe('the sweep failed');
  });

  it('fails a mailbox with no inbox, and an account without credentials', async () => {
    const server = await serve([
      { path: 'Archive', attributes: ['\\HasNoChildren'], uidValidity: 3, messages: [] },
    ]);
    const { deps } = depsFor(server);
    expect(await sweepOneAccount(deps, SEED)).toMatchObject({
      status: 'failed',
      reason: 'no inbox folder found',
    });
    expect(await sweepOneAccount(deps, 'other@mail.test')).toMatchObject({
      status: 'failed',
      reason: 'the account has no credentials',
    });
  });

  it('is not checked, not passed, when there is no account to sweep, and logs in nowhere', async () => {
    const server = await serve(mailbox());
    const { deps } = depsFor(server);
    const outcome = await sweepOneAccount(deps, undefined);
    expect(outcome.status).toBe('not-checked');
    expect(server.commands).toEqual([]);
  });
});

describe("the new version's probe", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('holds its lease in the table while it sweeps, beats once after, and gives the lease back', async () => {
    const service = await startTestService();
    cleanups.push(() => service.close());
    const server = await serve(mailbox());
    const { deps } = depsFor(server);
    const lease = new DynamoLease(service.client, service.table, PROBE_LEASE);
    const heldAtLogin: boolean[] = [];
    const connector = {
      open: async (...args: Parameters<ImapConnector['open']>) => {
        heldAtLogin.push(await lease.heldAt(Date.now()));
        return deps.connector.open(...args);
      },
    };
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    const metrics = createMetrics('scanner', 'InboxPlacement/test');

    const outcome = await probeScanner(
      {
        lease,
        sweep: () => sweepOneAccount({ ...deps, connector }, SEED),
        heartbeat: () => emitNow(metrics, 'scannerHeartbeat', 1),
        now: () => Date.now(),
      },
      'probe-request-1',
    );

    expect(outcome.status).toBe('passed');
    expect(outcome.reason).toMatch(
      /^lease written; swept 2 folder\(s\), read 7 message\(s\).*; heartbeat sent$/,
    );
    expect(heldAtLogin).toEqual([true]);
    expect(await lease.heldAt(Date.now())).toBe(false);
    const beats = out.filter((chunk) => chunk.includes('"ScannerHeartbeat"'));
    expect(beats).toHaveLength(1);
    expect(beats[0]).toContain('"Namespace":"InboxPlacement/test"');
  });
});
