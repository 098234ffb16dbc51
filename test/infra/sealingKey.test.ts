// The sealing key on the synthesized templates: a customer-managed key with rotation, kept on delete; its policy
// denies any use whose encryption context is not {purpose, item} with a known purpose; and each role's KMS statements
// are exactly its job's (the API none, the scanner opens credentials and seals OAuth ones only, the webhook sender
// and the monitors open their own), each pinned by encryption-context conditions; the operator's policy seals and
// opens every purpose; no secret holds key material.
import { beforeAll, describe, expect, it } from 'vitest';
import { SEALED_ITEMS } from '../../infra/constructs/sealingKey';
import { CREDENTIALS_PLACEHOLDER } from '../../infra/stacks/DataStack';
import { SEAL_PURPOSES } from '../../shared/domain/sealer';
import {
  actionsOf,
  propOf,
  resourcesOf,
  roleOfFunction,
  type Statement,
  type SynthesizedApp,
  statementsOfRole,
  synthApp,
} from './synthApp';

let built: SynthesizedApp;
beforeAll(() => {
  built = synthApp();
});

type KmsStatement = Statement & { Condition?: Record<string, Record<string, unknown>> };

/** Each KMS grant as "action purpose item", so a role's whole key access reads as one sorted list. */
const grantsOf = (statements: readonly KmsStatement[]): string[] =>
  statements
    .filter((statement) => actionsOf(statement).some((action) => action.startsWith('kms:')))
    .flatMap((statement) => {
      const purpose = statement.Condition?.StringEquals?.['kms:EncryptionContext:purpose'];
      const item = statement.Condition?.StringLike?.['kms:EncryptionContext:item'];
      return actionsOf(statement).map((action) => `${action} ${String(purpose)} ${String(item)}`);
    })
    .sort();

/** Every function of the service stack by logical id, with its role's KMS grants. */
const functionGrants = (): Map<string, string[]> => {
  const template = built.serviceTemplate;
  const grants = new Map<string, string[]>();
  for (const id of Object.keys(resourcesOf(template, 'AWS::Lambda::Function'))) {
    grants.set(id, grantsOf(statementsOfRole(template, roleOfFunction(template, id)) as KmsStatement[]));
  }
  return grants;
};

const grantOf = (id: string | undefined) => (id === undefined ? undefined : functionGrants().get(id));
const idMatching = (pattern: RegExp) =>
  Object.keys(resourcesOf(built.serviceTemplate, 'AWS::Lambda::Function')).find((id) => pattern.test(id));

describe('the sealing key', () => {
  it('is customer managed, rotates, is kept on delete and is published to the CLI', () => {
    const keys = Object.values(resourcesOf(built.dataTemplate, 'AWS::KMS::Key'));
    expect(keys).toHaveLength(1);
    expect(keys[0]?.Properties).toMatchObject({ EnableKeyRotation: true, RotationPeriodInDays: 365 });
    expect(keys[0]?.DeletionPolicy).toBe('Retain');
    built.dataTemplate.hasOutput('SealingKeyArn', {});
  });

  it('denies every caller any use whose encryption context is not exactly a known purpose and an item', () => {
    const [key] = Object.values(resourcesOf(built.dataTemplate, 'AWS::KMS::Key'));
    const policy = propOf<{ Statement: (KmsStatement & { Sid?: string })[] }>(key, 'KeyPolicy').Statement;
    const denies = policy.filter((statement) => statement.Effect === 'Deny');
    expect(denies.map((statement) => statement.Sid).sort()).toEqual([
      'DenyOtherContextKeys',
      'DenyUnknownPurpose',
      'DenyWithoutItem',
    ]);
    for (const deny of denies) {
      expect(actionsOf(deny)).toEqual(expect.arrayContaining(['kms:Decrypt', 'kms:GenerateDataKey*']));
      expect(JSON.stringify(deny)).toContain('"Principal":{"AWS":"*"}');
    }
    const condition = (sid: string) => denies.find((statement) => statement.Sid === sid)?.Condition;
    expect(condition('DenyUnknownPurpose')).toEqual({
      StringNotEquals: { 'kms:EncryptionContext:purpose': [...SEAL_PURPOSES] },
    });
    expect(condition('DenyWithoutItem')).toEqual({ Null: { 'kms:EncryptionContext:item': 'true' } });
    expect(condition('DenyOtherContextKeys')).toEqual({
      'ForAnyValue:StringNotEquals': { 'kms:EncryptionContextKeys': ['purpose', 'item'] },
    });
  });

  it('gives each role only its job: the API nothing, the scanner OAuth re-seals, sender and monitors one purpose', () => {
    const scanner = idMatching(/^Scanner[0-9A-F]{8}$/);
    const sender = idMatching(/^WebhooksSender/);
    const monitors = idMatching(/^Monitors/);
    expect([scanner, sender, monitors].every(Boolean)).toBe(true);
    expect(grantOf(scanner)).toEqual([
      'kms:Decrypt credentials CREDS#*',
      'kms:Decrypt oauth-credentials CREDS#*',
      'kms:GenerateDataKey oauth-credentials CREDS#*',
    ]);
    expect(grantOf(sender)).toEqual(['kms:Decrypt webhook-secrets WHSEC#*']);
    expect(grantOf(monitors)).toEqual(['kms:Decrypt monitor-message MONITOR#*']);
    // Every other function (the API's, calibration, the deploy hooks…) has no KMS statement at all.
    const others = [...functionGrants()].filter(([id]) => ![scanner, sender, monitors].includes(id));
    expect(others.length).toBeGreaterThan(3);
    for (const [id, grants] of others) expect(grants, id).toEqual([]);
  });

  it('pins every KMS statement of every role to a purpose and its items, on the key alone', () => {
    const statements = Object.values(resourcesOf(built.serviceTemplate, 'AWS::IAM::Policy')).flatMap(
      (policy) => propOf<{ Statement: KmsStatement[] }>(policy, 'PolicyDocument').Statement,
    );
    const onKey = statements.filter((statement) => actionsOf(statement).some((a) => a.startsWith('kms:')));
    // Five grants (scanner 3, sender 1, monitors 1); the scanner's two on oauth-credentials share one statement.
    expect(onKey.flatMap(actionsOf).filter((action) => action.startsWith('kms:'))).toHaveLength(5);
    for (const statement of onKey) {
      expect(statement.Resource).not.toBe('*');
      expect(JSON.stringify(statement.Resource)).toContain('SealingKey');
      const purpose = String(statement.Condition?.StringEquals?.['kms:EncryptionContext:purpose']);
      expect(SEAL_PURPOSES).toContain(purpose);
      expect(statement.Condition?.StringLike?.['kms:EncryptionContext:item']).toBe(
        SEALED_ITEMS[purpose as keyof typeof SEALED_ITEMS],
      );
    }
  });

  it("lets the operator's documented policy seal and open every purpose, each pinned the same way", () => {
    const [policy] = Object.values(resourcesOf(built.dataTemplate, 'AWS::IAM::ManagedPolicy'));
    const statements = propOf<{ Statement: KmsStatement[] }>(policy, 'PolicyDocument').Statement;
    expect(grantsOf(statements)).toEqual(
      SEAL_PURPOSES.flatMap((purpose) => [
        `kms:Decrypt ${purpose} ${SEALED_ITEMS[purpose]}`,
        `kms:GenerateDataKey ${purpose} ${SEALED_ITEMS[purpose]}`,
      ]).sort(),
    );
  });

  it('leaves no key material in the credentials secret', () => {
    const [secret] = Object.values(resourcesOf(built.dataTemplate, 'AWS::SecretsManager::Secret'));
    expect(propOf(secret, 'SecretString')).toBe(CREDENTIALS_PLACEHOLDER);
    expect(CREDENTIALS_PLACEHOLDER).not.toContain('itemKey');
  });
});
