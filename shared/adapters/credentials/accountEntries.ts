// Owns where full account entries (registration plus credentials) are kept: the local config file, or the
// Secrets Manager secret on AWS. Both hold `{"accounts": [...]}` in the format of config/local.json.
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  existsSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import * as z from 'zod';
import { parseJsonText } from '../../domain/jsonText';
import { problemsOf } from '../../domain/problems';
import { sleep } from '../../domain/timer';
import { type AccountEntry, accountEntrySchema, parseLocalConfig } from './accountEntrySchema';

export interface AccountEntries {
  read(): Promise<AccountEntry[]>;
  /**
   * Reads, applies `change`, writes back; the whole document is replaced, never appended to. A write that another
   * writer's update overtook is not lost and does not lose theirs: `change` runs again on the newer document, so it
   * may run more than once and must be a pure function of what it is given.
   */
  update(change: (accounts: AccountEntry[]) => AccountEntry[]): Promise<void>;
}

/** A config file that does not exist yet reads as no accounts, and is created by the first update. */
export class FileAccountEntries implements AccountEntries {
  constructor(private readonly path: string) {}

  async read(): Promise<AccountEntry[]> {
    if (!existsSync(this.path)) return [];
    return parseLocalConfig(readFileSync(this.path, 'utf8'), this.path).accounts;
  }

  async update(change: (accounts: AccountEntry[]) => AccountEntry[]): Promise<void> {
    // npm start's scanner and the admin CLI (or two npm starts) may both rotate tokens into the same file: the
    // read-change-write runs under a lock file, so neither writes over a change it did not read.
    const release = await lockFile(`${this.path}.lock`);
    try {
      this.updateLocked(change);
    } finally {
      release();
    }
  }

  private updateLocked(change: (accounts: AccountEntry[]) => AccountEntry[]): void {
    const text = existsSync(this.path) ? readFileSync(this.path, 'utf8') : '{"accounts": [], "apiKeys": []}';
    const config = parseLocalConfig(text, this.path);
    const raw = parseJsonText(text, this.path) as Record<string, unknown>;
    const next = { ...raw, accounts: change(config.accounts) };
    parseLocalConfig(JSON.stringify(next), this.path);
    // Write beside and rename, so a reader (npm start's scanner) never sees half a file.
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.path);
  }
}

/** How long update waits for another process's lock on the config file before giving up. */
const FILE_LOCK_WAIT_MS = 10_000;

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, someone else's. ESRCH: gone.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The pid in a lock file, 'released' when the file is gone, undefined while it is still empty. */
const ownerOf = (path: string): number | 'released' | undefined => {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'released';
    throw error;
  }
};

/**
 * Removes a lock its dead owner left. Moved aside first (rename is atomic), so of two processes clearing it at once
 * only one gets it; if what was moved turns out to be a live process's fresh lock, it is put back.
 */
const takeOverStale = (path: string, deadOwner: number): void => {
  const aside = `${path}.${process.pid}.${randomUUID()}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (ownerOf(aside) !== deadOwner) {
    try {
      linkSync(aside, path);
    } catch {
      // A third process took the lock in that instant, so two hold it now. It takes a dead owner and two live
      // writers within microseconds of each other; accepted rather than a lock server for a local config file.
    }
  }
  unlinkSync(aside);
};

/**
 * Takes `path` as a lock (created exclusively, holding the owner's pid) and returns its release. A lock whose owner
 * died is taken over; one held longer than FILE_LOCK_WAIT_MS by a live process fails the update, naming the file.
 */
const lockFile = async (path: string): Promise<() => void> => {
  const giveUpAt = Date.now() + FILE_LOCK_WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return () => unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = ownerOf(path);
    if (owner === 'released') continue;
    // A dead owner's lock is stale (an empty file is a lock being written this instant).
    if (owner !== undefined && !isAlive(owner)) {
      takeOverStale(path, owner);
      continue;
    }
    if (Date.now() > giveUpAt) {
      throw new Error(`${path} is held by process ${owner ?? '?'}; remove it if that is stale`);
    }
    await sleep(5 + Math.random() * 20);
  }
};

const secretSchema = z.object({
  accounts: z.array(accountEntrySchema),
  /** The key items were sealed with before KMS: read by `reseal` alone, then taken out. */
  itemKey: z.string().min(1).optional(),
});

/** The secret's document: the accounts it still holds itself (and, until `reseal`, the old item key). */
export type SecretDocument = z.infer<typeof secretSchema>;

/**
 * The staging label each write's new version gets; it marks the newest write attempt and moves along with it.
 * PutSecretValue with VersionStages set does not move AWSCURRENT, so a staged version is invisible until the
 * compare-and-set below makes it current.
 */
export const STAGED_WRITE_LABEL = 'INBOXPLACEMENT_STAGED';
const CURRENT = 'AWSCURRENT';

export interface SecretWriteOptions {
  /** Tries of read-change-write before update gives up (default 8). */
  attempts?: number;
  /** Pause before try `attempt` (2, 3, …) after a lost race; default a jittered 50–150 ms × attempt. */
  backoffMs?: (attempt: number) => number;
}

export class SecretAccountEntries implements AccountEntries {
  constructor(
    private readonly client: SecretsManagerClient,
    private readonly secretId: string,
    private readonly options: SecretWriteOptions = {},
  ) {}

  async read(): Promise<AccountEntry[]> {
    return (await this.readVersion()).document.accounts;
  }

  async readDocument(): Promise<SecretDocument> {
    return (await this.readVersion()).document;
  }

  /** Takes the old item key out of the document once every item it sealed is re-sealed under KMS (`reseal`). */
  async dropItemKey(): Promise<void> {
    if ((await this.readDocument()).itemKey === undefined) return;
    await this.write(({ itemKey: _, ...document }) => document);
  }

  /**
   * A versioned compare-and-set, so two scanner shards rotating different accounts' refresh tokens cannot drop
   * each other's (the old read-then-PutSecretValue let the later writer replace the whole document):
   *
   * 1. GetSecretValue (AWSCURRENT) returns the document and its VersionId.
   * 2. PutSecretValue of the changed document with VersionStages [STAGED_WRITE_LABEL] and a fresh
   *    ClientRequestToken: "If you don't include VersionStages, then Secrets Manager automatically moves the staging
   *    label AWSCURRENT to this version" — with it, AWSCURRENT stays where it is.
   * 3. UpdateSecretVersionStage AWSCURRENT, MoveToVersionId the new version, RemoveFromVersionId the version read:
   *    "If the label is attached and you either do not specify this parameter, or the version ID does not match,
   *    then the operation fails." So the move succeeds only if nobody made another version current since step 1.
   * 4. On failure, if AWSCURRENT did move, read again, apply `change` to the newer document and try again.
   *
   * Sources: the Secrets Manager API reference, PutSecretValue and UpdateSecretVersionStage
   * (https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_PutSecretValue.html,
   * https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_UpdateSecretVersionStage.html), as quoted in
   * the SDK references generated from it (e.g. docs.aws.amazon.com/sdk-for-ruby/v2/api/Aws/SecretsManager/Types/
   * UpdateSecretVersionStageRequest.html). The reference names no error code for the mismatch, so step 4 decides
   * by reading AWSCURRENT again rather than by the error's name; it does not say in words that the check and the
   * move are atomic, which this relies on. test/support/FakeSecretsManager.ts models exactly these rules.
   */
  async update(change: (accounts: AccountEntry[]) => AccountEntry[]): Promise<void> {
    await this.write((document) => ({ ...document, accounts: change(document.accounts) }));
  }

  /** The compare-and-set above, over the whole document (the item key is carried through every write). */
  private async write(change: (document: SecretDocument) => SecretDocument): Promise<void> {
    const attempts = this.options.attempts ?? 8;
    const backoffMs = this.options.backoffMs ?? ((attempt: number) => (50 + Math.random() * 100) * attempt);
    for (let attempt = 1; ; attempt++) {
      const current = await this.readVersion();
      const { VersionId: staged } = await this.client.send(
        new PutSecretValueCommand({
          SecretId: this.secretId,
          SecretString: JSON.stringify(change(current.document)),
          ClientRequestToken: randomUUID(),
          VersionStages: [STAGED_WRITE_LABEL],
        }),
      );
      if (staged === undefined)
        throw new Error(`secret ${this.secretId}: PutSecretValue returned no VersionId`);
      try {
        await this.client.send(
          new UpdateSecretVersionStageCommand({
            SecretId: this.secretId,
            VersionStage: CURRENT,
            MoveToVersionId: staged,
            RemoveFromVersionId: current.versionId,
          }),
        );
        return;
      } catch (error) {
        const now = await this.readVersion();
        // The move went through and only its answer was lost.
        if (now.versionId === staged) return;
        // Still current: the move failed for another reason (permissions, throttling), not a lost race.
        if (now.versionId === current.versionId) throw error;
        if (attempt >= attempts) {
          throw new Error(
            `secret ${this.secretId}: still overtaken by other writers after ${attempts} tries`,
          );
        }
        await sleep(backoffMs(attempt + 1));
      }
    }
  }

  private async readVersion(): Promise<{ document: SecretDocument; versionId: string | undefined }> {
    const { SecretString, VersionId } = await this.client.send(
      new GetSecretValueCommand({ SecretId: this.secretId }),
    );
    const source = `secret ${this.secretId}`;
    const parsed = secretSchema.safeParse(parseJsonText(SecretString ?? '{"accounts":[]}', source));
    // Name the failing fields and what is wrong, never their values: they are credentials.
    if (!parsed.success) throw new Error(`${source} is malformed at ${problemsOf(parsed.error).join('; ')}`);
    return { document: parsed.data, versionId: VersionId };
  }
}
