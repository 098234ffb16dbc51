// `accounts add` on a deployed stack refuses, before asking for any secret, an account its scanner's reservation
// could not sweep, with the numbers; the reservation and shard size come from the service stack's outputs.
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { describe, expect, it } from 'vitest';
import { type AccountContext, registerAccount } from '../../shared/cli/accountCommands';
import { findDeployedStore } from '../../shared/cli/stackOutputs';
import { CAPACITY_OUTPUTS } from '../../shared/scanner/scannerCapacity';

const registered = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ email: `seed${i}@mail.test`, scope: 'default', active: true }));

const contextWith = (accounts: number, capacity: AccountContext['capacity']) => {
  const stored: string[] = [];
  const ctx = {
    registry: { list: async () => registered(accounts), put: async () => void stored.push('registry') },
    credentials: { put: async () => void stored.push('credentials') },
    out: () => undefined,
    json: false,
    capacity,
  } as unknown as AccountContext;
  return { ctx, stored };
};

const OPTIONS = {
  provider: 'imap',
  scope: 'default',
  host: 'imap.mail.test',
  port: '993',
  secure: true,
  user: undefined,
  folders: [],
  active: true,
};

describe('accounts add against the deployed reservation', () => {
  it('refuses the account that takes a shard past the reservation, before any secret is asked for', async () => {
    // 229 accounts fit one shard (5 reserved); the 230th makes two shards, which need 8.
    const { ctx, stored } = contextWith(229, { reservation: 5, shardSize: 229 });
    await expect(registerAccount(ctx, 'new@mail.test', OPTIONS, { passwordFromStdin: true })).rejects.toThrow(
      /accounts add refused: 230 mailboxes take 2 shard\(s\) of at most 229 accounts.*reserve at least 8; redeploy with -c mailboxes=230/,
    );
    expect(stored).toEqual([]);
  });

  it('reads the reservation and shard size from the data stack, the one the operator policy may read', async () => {
    const client = {
      send: async (command: { input: { StackName: string } }) => {
        const base = [
          { OutputKey: 'TableName', OutputValue: 'table' },
          { OutputKey: 'CredentialsSecretArn', OutputValue: 'arn:secret' },
        ];
        const capacity = [
          { OutputKey: CAPACITY_OUTPUTS.reservation, OutputValue: '95' },
          { OutputKey: CAPACITY_OUTPUTS.shardSize, OutputValue: '229' },
        ];
        return { Stacks: [{ Outputs: command.input.StackName === 'Old' ? base : [...base, ...capacity] }] };
      },
    } as unknown as CloudFormationClient;
    expect((await findDeployedStore(client, 'staging-InboxPlacementData')).capacity).toEqual({
      reservation: 95,
      shardSize: 229,
    });
    // A stack deployed before these outputs: no check rather than a made-up one.
    expect((await findDeployedStore(client, 'Old')).capacity).toBeUndefined();
  });
});
