// An in-memory FAKE of Secrets Manager for one secret: versions and their staging labels, and exactly the rules
// SecretAccountEntries.update relies on (quoted there from the API reference). Not a model of anything else
// (no rotation, no KMS, no version limits or deprecation, no resource policies).
import {
  GetSecretValueCommand,
  type GetSecretValueCommandOutput,
  PutSecretValueCommand,
  type PutSecretValueCommandOutput,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';

const CURRENT = 'AWSCURRENT';
const PREVIOUS = 'AWSPREVIOUS';

interface Version {
  secretString: string;
  stages: Set<string>;
}

/** The error Secrets Manager answers a refused stage move with (the API reference names none for it). */
class FakeInvalidParameterException extends Error {
  override name = 'InvalidParameterException';
}

export class FakeSecretsManager {
  private readonly versions = new Map<string, Version>();
  private nextId = 1;
  /** Every command received, by name, in order. */
  readonly calls: string[] = [];
  /** UpdateSecretVersionStage calls refused because RemoveFromVersionId did not hold the label. */
  refusedMoves = 0;

  constructor(initial: string) {
    this.versions.set('v0', { secretString: initial, stages: new Set([CURRENT]) });
  }

  /** What SecretAccountEntries is given in place of the SDK client. */
  get client(): SecretsManagerClient {
    return { send: (command: unknown) => this.send(command) } as unknown as SecretsManagerClient;
  }

  /** The AWSCURRENT value, as a reader would see it. */
  current(): string {
    return this.holderOf(CURRENT)?.[1].secretString ?? '';
  }

  /** Which version holds each label, e.g. { AWSCURRENT: 'v2', AWSPREVIOUS: 'v1' }. */
  labels(): Record<string, string> {
    const labels: Record<string, string> = {};
    for (const [id, version] of this.versions) for (const stage of version.stages) labels[stage] = id;
    return labels;
  }

  /**
   * Every call answers after a macrotask, as a network call would, so two writers started together interleave:
   * both read before either writes.
   */
  async send(command: unknown): Promise<unknown> {
    await new Promise((resolve) => setImmediate(resolve));
    if (command instanceof GetSecretValueCommand) return this.get(command.input);
    if (command instanceof PutSecretValueCommand) return this.put(command.input);
    if (command instanceof UpdateSecretVersionStageCommand) return this.moveStage(command.input);
    throw new Error(`FakeSecretsManager does not model ${String((command as object)?.constructor?.name)}`);
  }

  private holderOf(stage: string): [string, Version] | undefined {
    return [...this.versions].find(([, version]) => version.stages.has(stage));
  }

  /** Attaches `stage` to `id`, taking it off whichever version held it; moving AWSCURRENT leaves AWSPREVIOUS behind. */
  private attach(stage: string, id: string): void {
    const holder = this.holderOf(stage);
    if (holder?.[0] === id) return;
    holder?.[1].stages.delete(stage);
    this.versions.get(id)?.stages.add(stage);
    if (stage === CURRENT && holder) this.attach(PREVIOUS, holder[0]);
  }

  /** GetSecretValue: by VersionId, else by VersionStage, else AWSCURRENT. */
  private get(input: GetSecretValueCommand['input']): Partial<GetSecretValueCommandOutput> {
    this.calls.push('GetSecretValue');
    const found =
      input.VersionId !== undefined
        ? ([input.VersionId, this.versions.get(input.VersionId)] as const)
        : this.holderOf(input.VersionStage ?? CURRENT);
    const [id, version] = found ?? [];
    if (!id || !version)
      throw Object.assign(new Error('version not found'), { name: 'ResourceNotFoundException' });
    return { SecretString: version.secretString, VersionId: id, VersionStages: [...version.stages] };
  }

  /**
   * PutSecretValue: a new version under ClientRequestToken (the same token and value again is a no-op); its labels
   * are VersionStages, or AWSCURRENT when none are given. Each label moves from the version that held it.
   */
  private put(input: PutSecretValueCommand['input']): Partial<PutSecretValueCommandOutput> {
    this.calls.push('PutSecretValue');
    const id = input.ClientRequestToken ?? `v${this.nextId++}`;
    const existing = this.versions.get(id);
    if (existing) {
      if (existing.secretString !== input.SecretString) {
        throw Object.assign(new Error('a version with this token exists with another value'), {
          name: 'ResourceExistsException',
        });
      }
    } else {
      this.versions.set(id, { secretString: input.SecretString ?? '', stages: new Set() });
    }
    for (const stage of input.VersionStages ?? [CURRENT]) this.attach(stage, id);
    return { VersionId: id, VersionStages: [...(this.versions.get(id)?.stages ?? [])] };
  }

  /**
   * UpdateSecretVersionStage: when the label is attached to a version other than MoveToVersionId, the call fails
   * unless RemoveFromVersionId names exactly that version. Check and move happen as one step.
   */
  private moveStage(input: UpdateSecretVersionStageCommand['input']): object {
    this.calls.push('UpdateSecretVersionStage');
    const stage = input.VersionStage ?? '';
    const holder = this.holderOf(stage);
    if (input.MoveToVersionId === undefined || !this.versions.has(input.MoveToVersionId)) {
      throw new FakeInvalidParameterException(
        'MoveToVersionId must name a version (removal is not modelled)',
      );
    }
    if (holder && holder[0] !== input.MoveToVersionId && holder[0] !== input.RemoveFromVersionId) {
      this.refusedMoves++;
      throw new FakeInvalidParameterException(
        `${stage} is attached to ${holder[0]}, not to RemoveFromVersionId ${String(input.RemoveFromVersionId)}`,
      );
    }
    this.attach(stage, input.MoveToVersionId);
    return {};
  }
}
