// In-memory stand-ins for the scanner's check store and cursor store, for protocol tests whose subject is the IMAP
// conversation: DynamoDB's side of both is tested on dynalite elsewhere.
import type { DetectedCategory } from '../../shared/domain/categories';
import type { RecordOutcome } from '../../shared/domain/ports';
import type {
  ActiveChecks,
  CursorStore,
  FolderCursor,
  MailboxConnector,
  MailboxCredentials,
  PendingAccounts,
  ResultStore,
  SettledCheck,
} from '../../shared/scanner/scannerPorts';

/** Live checks and the results written for them; an account stays pending until its result is recorded. */
export class FakeChecks implements ActiveChecks, ResultStore {
  readonly calls: { checkId: string; email: string; category: DetectedCategory }[] = [];
  private readonly recorded = new Set<string>();

  constructor(private readonly checks: { checkId: string; accounts: string[]; createdAt?: number }[]) {}

  async listActive(_now: number): Promise<PendingAccounts[]> {
    return this.checks
      .map(({ checkId, accounts, createdAt }) => ({
        checkId,
        ...(createdAt === undefined ? {} : { createdAt }),
        pending: accounts.filter((email) => !this.recorded.has(`${checkId} ${email}`)),
      }))
      .filter((check) => check.pending.length > 0);
  }

  async settle(_now: number): Promise<SettledCheck[]> {
    return [];
  }

  async recordResult(
    checkId: string,
    email: string,
    category: DetectedCategory,
    _now: number,
  ): Promise<RecordOutcome> {
    this.calls.push({ checkId, email, category });
    const key = `${checkId} ${email}`;
    if (this.recorded.has(key)) return 'already-recorded';
    this.recorded.add(key);
    return 'recorded';
  }

  /** The category written for each check, by check id. */
  categories(): Record<string, DetectedCategory> {
    return Object.fromEntries(this.calls.map(({ checkId, category }) => [checkId, category]));
  }
}

export class MemoryCursors implements CursorStore {
  readonly byKey = new Map<string, FolderCursor>();
  async get(email: string, path: string) {
    return this.byKey.get(`${email} ${path}`);
  }
  async all(email: string) {
    const prefix = `${email} `;
    return new Map(
      [...this.byKey]
        .filter(([key]) => key.startsWith(prefix))
        .map(([key, cursor]) => [key.slice(prefix.length), cursor] as const),
    );
  }
  async put(email: string, path: string, cursor: FolderCursor) {
    this.byKey.set(`${email} ${path}`, cursor);
  }
  async putAll(email: string, cursors: ReadonlyMap<string, FolderCursor>) {
    for (const [path, cursor] of cursors) this.byKey.set(`${email} ${path}`, cursor);
  }
}

/** Mailboxes that hold nothing, counting the logins (one entry per account opened). */
export const emptyMailboxes = () => {
  const opened: string[] = [];
  const connector: MailboxConnector = {
    async open(credentials) {
      opened.push(credentials.email);
      return {
        gmail: false,
        folders: async () => [],
        headersAfter: async () => [],
        headersSince: async () => [],
        tabsOf: async () => new Map(),
        close: async () => undefined,
      };
    },
  };
  return { connector, opened };
};

/** Password credentials for any account, pointing nowhere: for scanners over fake mailboxes. */
export const credentialsOf = (email: string): MailboxCredentials => ({
  email,
  provider: 'imap',
  imap: { host: '127.0.0.1', port: 1, secure: false },
  auth: { user: email, pass: 'x' },
  folders: {},
});

/** A scan loop's options for tests over fake mailboxes: a 5 ms interval, a minute to run, no idle grace. */
export const fastLoopOptions = () => ({
  owner: 'me',
  intervalMs: 5,
  deadline: Date.now() + 60_000,
  leaseTtlMs: 1000,
  idleGraceMs: 0,
});
