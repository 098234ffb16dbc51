// A test stand-in for IAM's fine-grained access on the table: every command a client sends is checked against a
// function's grant (infra/tableKeys.ts: item kinds by partition-key prefix, an account's health attributes), and
// what the grant would not allow is recorded, as AWS would refuse it, where a local run would let it through.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KeyGrant } from '../../infra/tableKeys';
import { KEY_PREFIXES, type KeyKind } from '../../shared/adapters/dynamo/keys';

const READS = new Set(['GetItem', 'Query', 'BatchGetItem']);
const WORDS = new Set(['SET', 'REMOVE', 'ADD', 'DELETE', 'AND', 'OR', 'NOT', 'IN', 'BETWEEN']);
const FUNCTIONS = new Set([
  'attribute_exists',
  'attribute_not_exists',
  'attribute_type',
  'begins_with',
  'contains',
  'size',
  'if_not_exists',
  'list_append',
]);

interface Input {
  Key?: Record<string, unknown>;
  Item?: Record<string, unknown>;
  IndexName?: string;
  KeyConditionExpression?: string;
  UpdateExpression?: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
  RequestItems?: Record<
    string,
    | { PutRequest?: { Item?: Record<string, unknown> }; DeleteRequest?: { Key?: Record<string, unknown> } }[]
    | { Keys?: Record<string, unknown>[] }
  >;
}

/** The partition keys a request names (none for an index query or a scan). */
const partitionKeysOf = (operation: string, input: Input): string[] => {
  if (input.IndexName) return [];
  if (operation === 'Query') {
    const placeholder = /\bpk\s*=\s*(:\w+)/.exec(input.KeyConditionExpression ?? '')?.[1];
    return placeholder ? [String(input.ExpressionAttributeValues?.[placeholder])] : [];
  }
  if (operation === 'BatchWriteItem') {
    return Object.values(input.RequestItems ?? {})
      .flatMap((requests) => (Array.isArray(requests) ? requests : []))
      .map((request) => String(request.PutRequest?.Item?.pk ?? request.DeleteRequest?.Key?.pk));
  }
  if (operation === 'BatchGetItem') {
    return Object.values(input.RequestItems ?? {})
      .flatMap((requests) => (Array.isArray(requests) ? [] : (requests.Keys ?? [])))
      .map((key) => String(key.pk));
  }
  const pk = input.Key?.pk ?? input.Item?.pk;
  return pk === undefined ? [] : [String(pk)];
};

/** The top-level attributes an update's expressions name, with the names resolved. */
const attributesOf = (input: Input): string[] => {
  const text = `${input.UpdateExpression ?? ''} ${input.ConditionExpression ?? ''}`.replace(/:\w+/g, ' ');
  return [
    ...new Set(
      (text.match(/#?\w+/g) ?? [])
        .filter((word) => !WORDS.has(word) && !FUNCTIONS.has(word) && !/^\d/.test(word))
        .map((word) => (word.startsWith('#') ? (input.ExpressionAttributeNames?.[word] ?? word) : word)),
    ),
  ];
};

const kindOf = (pk: string): KeyKind | undefined =>
  (Object.entries(KEY_PREFIXES) as [KeyKind, string][]).find(([, prefix]) => pk.startsWith(prefix))?.[0];

export interface KeyGuard {
  /** What the grant would not allow, one line each. */
  refused: string[];
  /** Every operation on a kind of item that went through, as `Operation kind`. */
  seen: Set<string>;
  remove(): void;
}

/** Checks every table command `client` sends against `grant`; `active` decides whether a command is checked now. */
export const guardTableKeys = (
  client: DynamoDBDocumentClient,
  grant: KeyGrant,
  active: () => boolean = () => true,
): KeyGuard => {
  const refused: string[] = [];
  const seen = new Set<string>();
  const name = `keyGuard${Math.random()}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName).replace(/Command$/, '');
      if (!active()) return next(args);
      const input = args.input as Input;
      for (const pk of partitionKeysOf(operation, input)) {
        const kind = kindOf(pk);
        const allowed = READS.has(operation) ? grant.read : grant.write;
        seen.add(`${operation} ${kind ?? pk}`);
        if (kind && allowed.includes(kind)) continue;
        if (kind === 'account' && operation === 'UpdateItem' && grant.accountHealth) {
          const outside = attributesOf(input).filter(
            (attribute) => !grant.accountHealth?.includes(attribute),
          );
          if (outside.length === 0) continue;
          refused.push(`${operation} on ${pk} sets ${outside.join(', ')}`);
          continue;
        }
        refused.push(`${operation} on ${pk} (${kind ?? 'no known prefix'})`);
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { refused, seen, remove: () => client.middlewareStack.remove(name) };
};
