// Owns who may do what with the sealing key: the customer-managed KMS key (rotation on) every credentials item, webhook
// secret and monitor message is sealed under, its key policy pinning the encryption context's shape for every caller,
// and the per-role statements pinning each role to the purposes (and items) it seals or opens.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { KEY_PREFIXES } from '../../shared/adapters/dynamo/keys';
import { SEAL_PURPOSES, type SealPurpose } from '../../shared/domain/sealer';

/** The item each purpose seals (EnvelopeSealer's `item` context): a role sealing credentials cannot seal a monitor. */
export const SEALED_ITEMS: Record<SealPurpose, string> = {
  credentials: `${KEY_PREFIXES.credentials}*`,
  'oauth-credentials': `${KEY_PREFIXES.credentials}*`,
  'webhook-secrets': `${KEY_PREFIXES.webhookSecrets}*`,
  'monitor-message': `${KEY_PREFIXES.monitor}*`,
};

/** What the Encryption SDK's KMS keyring sends: a data key to seal, Decrypt to open. */
const SEAL = 'kms:GenerateDataKey';
const OPEN = 'kms:Decrypt';
const CRYPTO = ['kms:Encrypt', 'kms:Decrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*'];

export interface SealingUse {
  /** Purposes the role opens (kms:Decrypt). */
  open?: readonly SealPurpose[];
  /** Purposes the role seals (kms:GenerateDataKey). */
  seal?: readonly SealPurpose[];
}

/** One statement per purpose and action: the purpose and its item pattern both conditions of the grant. */
export const sealingStatements = (keyArn: string, use: SealingUse): PolicyStatement[] => {
  const statement = (action: string, purpose: SealPurpose) =>
    new PolicyStatement({
      actions: [action],
      resources: [keyArn],
      conditions: {
        StringEquals: { 'kms:EncryptionContext:purpose': purpose },
        StringLike: { 'kms:EncryptionContext:item': SEALED_ITEMS[purpose] },
      },
    });
  return [
    ...(use.open ?? []).map((purpose) => statement(OPEN, purpose)),
    ...(use.seal ?? []).map((purpose) => statement(SEAL, purpose)),
  ];
};

/**
 * The key, kept when the stack goes (the items it sealed would not open without it). Its policy lets the account's
 * IAM policies grant use (the CDK default), and denies everyone any cryptographic use whose encryption context is not
 * exactly {purpose, item} with a known purpose: no role's policy can widen that.
 */
export const createSealingKey = (scope: Construct, stage: string | undefined): Key => {
  const key = new Key(scope, 'SealingKey', {
    description: `Seals the inbox-placement credentials, webhook secrets and monitor messages${stage ? ` (${stage})` : ''}`,
    enableKeyRotation: true,
    rotationPeriod: Duration.days(365),
    removalPolicy: RemovalPolicy.RETAIN,
    pendingWindow: Duration.days(30),
  });
  const deny = (sid: string, conditions: Record<string, Record<string, unknown>>) =>
    key.addToResourcePolicy(
      new PolicyStatement({
        sid,
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: CRYPTO,
        resources: ['*'],
        conditions,
      }),
    );
  deny('DenyUnknownPurpose', { StringNotEquals: { 'kms:EncryptionContext:purpose': [...SEAL_PURPOSES] } });
  deny('DenyWithoutItem', { Null: { 'kms:EncryptionContext:item': 'true' } });
  deny('DenyOtherContextKeys', {
    'ForAnyValue:StringNotEquals': { 'kms:EncryptionContextKeys': ['purpose', 'item'] },
  });
  return key;
};
