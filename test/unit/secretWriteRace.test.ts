// Rotated refresh tokens written back to the Secrets Manager secret by two scanner shards at once: the versioned
// compare-and-set keeps both. Runs against FakeSecretsManager (test/support), an in-memory fake that models only
// versions, staging labels, PutSecretValue's VersionStages and UpdateSecretVersionStage's RemoveFromVersionId
// check, the rules SecretAccountEntries.update relies on; not the real service.
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { SecretAccountEntries, STAGED_WRITE_LABEL } from '../../shared/adapters/credentials/accountEntries';
import { refreshTokenPersister } from '../../shared/adapters/oauth/refreshTokenPersister';
import { FakeSecretsManager } from '../support/FakeSecretsManager';
import { type OAuthAccountEntry, oauthAccountEntry } from '../support/oauthAccountEntry';

const oauthAccount = oauthAccountEntry;

const A = 'a@mail.test';
const B = 'b@mail.test';

const newSecret = () =>
  new FakeSecretsManager(
    JSON.stringify({ accounts: [oauthAccount(A, 'a-refresh-0'), oauthAccount(B, 'b-refresh-0')] }),
  );

const tokensIn = (secret: FakeSecretsManager) =>
  Object.fromEntries(
    (JSON.parse(secret.current()) as { accounts: OAuthAccountEntry[] }).accounts.map((account) => [
      account.email,
      account.auth.oauth2.refreshToken,
    ]),
  );

/** What the scanner did before: read the whole secret, change it, PutSecretValue it back as AWSCURRENT. */
const unversionedRotation = async (client: SecretsManagerClient, email: string, next: string) => {
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: 's' }));
  const doc = JSON.parse(SecretString ?? '') as { accounts: OAuthAccountEntry[] };
  for (const account of doc.accounts) if (account.email === email) account.auth.oauth2.refreshToken = next;
  await client.send(new PutSecretValueCommand({ SecretId: 's', SecretString: JSON.stringify(doc) }));
};

describe('refresh tokens written back to the secret by two shards at once', () => {
  it('the fake reproduces the race: with unversioned writes one shard loses its rotated token', async () => {
    const secret = newSecret();
    await Promise.all([
      unversionedRotation(secret.client, A, 'a-refresh-1'),
      unversionedRotation(secret.client, B, 'b-refresh-1'),
    ]);
    expect(tokensIn(secret)).toEqual({ [A]: 'a-refresh-0', [B]: 'b-refresh-1' });
  });

  it('keeps both rotated tokens: the overtaken writer re-reads, re-applies and wins the second try', async () => {
    const secret = newSecret();
    const shard = () =>
      refreshTokenPersister(new SecretAccountEntries(secret.client, 's', { backoffMs: () => 0 }));
    const [shardA, shardB] = [shard(), shard()];

    const stored = await Promise.all([
      shardA.persistRefreshToken(A, 'a-refresh-1', 'a-refresh-0'),
      shardB.persistRefreshToken(B, 'b-refresh-1', 'b-refresh-0'),
    ]);

    expect(stored).toEqual([true, true]);
    expect(tokensIn(secret)).toEqual({ [A]: 'a-refresh-1', [B]: 'b-refresh-1' });
    // The race really happened: one stage move was refused and tried again.
    expect(secret.refusedMoves).toBe(1);
    expect(secret.labels()).toMatchObject({
      AWSCURRENT: expect.any(String),
      AWSPREVIOUS: expect.any(String),
    });
  });

  it('keeps every token of many rotations racing across several shards', async () => {
    const secret = new FakeSecretsManager(
      JSON.stringify({
        accounts: Array.from({ length: 4 }, (_, i) => oauthAccount(`s${i}@mail.test`, `s${i}-0`)),
      }),
    );
    const shards = Array.from({ length: 4 }, () =>
      refreshTokenPersister(
        new SecretAccountEntries(secret.client, 's', { attempts: 20, backoffMs: () => 0 }),
      ),
    );
    // Each shard rotates its own account five times in a row; all four shards run at once.
    const results = await Promise.all(
      shards.map(async (persister, i) => {
        const answers: unknown[] = [];
        for (let n = 1; n <= 5; n++) {
          answers.push(
            await persister.persistRefreshToken(`s${i}@mail.test`, `s${i}-${n}`, `s${i}-${n - 1}`),
          );
        }
        return answers;
      }),
    );
    expect(results.flat()).toEqual(Array(20).fill(true));
    expect(tokensIn(secret)).toEqual(
      Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`s${i}@mail.test`, `s${i}-5`])),
    );
    expect(secret.refusedMoves).toBeGreaterThan(0);
  });

  it('does not re-apply a change whose stage move went through although its answer was lost', async () => {
    const secret = newSecret();
    const lossy = {
      send: async (command: unknown) => {
        const answer = await secret.send(command);
        if ((command as object).constructor.name === 'UpdateSecretVersionStageCommand') {
          throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
        }
        return answer;
      },
    } as unknown as SecretsManagerClient;
    const persister = refreshTokenPersister(new SecretAccountEntries(lossy, 's', { backoffMs: () => 0 }));
    expect(await persister.persistRefreshToken(A, 'a-refresh-1', 'a-refresh-0')).toBe(true);
    expect(tokensIn(secret)[A]).toBe('a-refresh-1');
    expect(secret.calls.filter((call) => call === 'PutSecretValue')).toHaveLength(1);
  });

  it('stages each write under its own label first, so a half-done write is never what readers get', async () => {
    const secret = newSecret();
    const failing = {
      send: async (command: unknown) => {
        if ((command as object).constructor.name === 'UpdateSecretVersionStageCommand') {
          throw Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' });
        }
        return secret.send(command);
      },
    } as unknown as SecretsManagerClient;
    const entries = new SecretAccountEntries(failing, 's', { backoffMs: () => 0 });
    await expect(entries.update((accounts) => accounts.slice(1))).rejects.toThrow('not authorized');
    // The staged version exists, but AWSCURRENT did not move: readers still see both accounts.
    expect(Object.keys(tokensIn(secret))).toEqual([A, B]);
    expect(secret.labels()[STAGED_WRITE_LABEL]).not.toBe(secret.labels().AWSCURRENT);
  });

  it('gives up, naming the secret, after its tries when other writers keep overtaking it', async () => {
    const secret = newSecret();
    let overtakes = 0;
    const contended = {
      send: async (command: unknown) => {
        // Another writer makes a new version current just before every stage move of ours.
        if ((command as object).constructor.name === 'UpdateSecretVersionStageCommand') {
          overtakes++;
          await secret.send(new PutSecretValueCommand({ SecretId: 's', SecretString: secret.current() }));
        }
        return secret.send(command);
      },
    } as unknown as SecretsManagerClient;
    const entries = new SecretAccountEntries(contended, 's', { attempts: 3, backoffMs: () => 0 });
    await expect(entries.update((accounts) => accounts)).rejects.toThrow(
      's: still overtaken by other writers after 3 tries',
    );
    expect(overtakes).toBe(3);
  });
});
