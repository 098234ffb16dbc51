// Owns the one seed account the protocol tests script a Dovecot-like IMAP server for: its address and password,
// what the server says before and after login, a newsletter in its mailbox (tagged for a check or not), and its
// credentials for the scanner.
import { StaticCredentialSource } from '../../scripts/lib/StaticCredentialSource';
import { newsletterHeaders, type ScriptedMessage } from '../../scripts/lib/scriptedImapServer';
import type { MailboxCredentials } from '../../shared/scanner/scannerPorts';

export const SEED = 'seed@mail.test';
const PASSWORD = 'secret';

/** Dovecot's greeting, capabilities (LIST-STATUS, SPECIAL-USE, UNSELECT; no NOTIFY, IDLE or WITHIN) and login. */
export const DOVECOT_LIKE = {
  greeting: '* OK [CAPABILITY IMAP4rev1 LITERAL+ AUTH=PLAIN] ready',
  capabilities: {
    beforeLogin: ['IMAP4rev1', 'LITERAL+', 'AUTH=PLAIN'],
    afterLogin: ['IMAP4rev1', 'LITERAL+', 'LIST-EXTENDED', 'LIST-STATUS', 'SPECIAL-USE', 'UNSELECT'],
  },
  login: { user: SEED, pass: PASSWORD },
};

/** A newsletter delivered a minute before `now`, tagged for `checkId` (To and Delivered-To) when one is given. */
export const seedMessage = (uid: number, now: number, checkId?: string): ScriptedMessage => {
  const to = checkId ? `seed+tc_${checkId}@mail.test` : SEED;
  return { uid, internalDate: now - 60_000, headers: newsletterHeaders(uid, to, [`Delivered-To: ${to}`]) };
};

/** The seed's credentials for a scripted server on loopback (plain text: the connector needs no TLS there). */
export const seedCredentials = (server: { host: string; port: number }): MailboxCredentials => ({
  email: SEED,
  provider: 'imap',
  imap: { host: server.host, port: server.port, secure: false },
  auth: { user: SEED, pass: PASSWORD },
  folders: {},
});

/** A credential source holding only the seed's. */
export const seedCredentialSource = (server: { host: string; port: number }) =>
  new StaticCredentialSource(new Map([[SEED, seedCredentials(server)]]));
