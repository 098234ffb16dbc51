// Owns the one seam through which a benchmark looks inside npm start: a hook installed before the service starts (a
// module the bench preloads) sees its DynamoDB clients and loops and is told when it stops. Production installs none.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AuditListener } from '../audit';

export interface LocalServiceParts {
  /** The clients the service's own work goes through (the expiry stand-in's is apart: DynamoDB's TTL is free). */
  clients: DynamoDBDocumentClient[];
  /** Loops run and their milliseconds, summed over the shards: what the same loops would be billed on Lambda. */
  loopUsage(): { runs: number; runMs: number };
  /** The sender audit's source fetches and its time from a check's first recorded copy to the audit stored. */
  audits: { listen(listener: AuditListener): void };
}

export interface LocalServiceHook {
  /** Before the loops and the server start. */
  started(parts: LocalServiceParts): void;
  /** After the loops and the server stopped, before the store closes. */
  stopped?(): void;
}

const hooks: LocalServiceHook[] = [];

export const installLocalServiceHook = (hook: LocalServiceHook): void => {
  hooks.push(hook);
};

/** Tells the installed hooks the service started; returns what tells them it stopped. */
export const announceLocalService = (parts: LocalServiceParts): (() => void) => {
  for (const hook of hooks) hook.started(parts);
  return () => {
    for (const hook of hooks) hook.stopped?.();
  };
};
