// Owns the sessions a loop leaves open for the next loop in the same process: which to keep, for how long, and
// handing one back to the account's first sweep.
import { SCAN_SCHEDULE_MS } from './planning';
import type { AccountState } from './reading';
import type { MailboxSession } from './scannerPorts';

/**
 * A session parked by a loop that ended is taken up by the next loop in this process within this long: the
 * schedule's next minute, with room for its start. Older, it is logged out.
 */
export const PARK_MS = SCAN_SCHEDULE_MS + 30_000;

/**
 * Sessions of accounts a live check still waited for when the last loop ended, kept for the next loop in this
 * process (a warm Lambda's next invocation, npm start's next loop): its sweep of such an account is one
 * LIST-STATUS, where logging in again cost five commands more at the provider, every minute of a late check.
 */
export class ParkedSessions {
  private readonly parked = new Map<string, { session: MailboxSession; at: number }>();

  /** Gives a fresh account state the session parked for it, if one is still young and usable; closes any other. */
  adopt(email: string, state: AccountState, now: number): void {
    const parked = this.parked.get(email);
    this.parked.delete(email);
    if (parked && now - parked.at < PARK_MS && parked.session.usable) {
      state.session = parked.session;
      state.parked = true;
    } else parked?.session.close().catch(() => undefined);
  }

  /** The session parked for `email`, while usable: the sender audit reads a copy over it rather than log in. */
  held(email: string): MailboxSession | undefined {
    const parked = this.parked.get(email)?.session;
    return parked?.usable === false ? undefined : parked;
  }

  /**
   * As a loop ends: parks the idle, usable sessions of the accounts in `waitedFor` (none when `keep` is false, the
   * process ending) and returns every other session to close, parked ones never taken up and too old included.
   */
  park(
    accounts: Iterable<[string, AccountState]>,
    waitedFor: ReadonlySet<string>,
    now: number,
    keep: boolean,
  ): MailboxSession[] {
    const closing: MailboxSession[] = [];
    for (const [email, parked] of this.parked)
      if (!keep || now - parked.at >= PARK_MS || !waitedFor.has(email)) {
        closing.push(parked.session);
        this.parked.delete(email);
      }
    for (const [email, state] of accounts) {
      if (!state.session) continue;
      if (keep && !state.busy && state.session.usable && waitedFor.has(email))
        this.parked.set(email, { session: state.session, at: now });
      else closing.push(state.session);
    }
    return closing;
  }
}
