// Owns what DynamoDB would bill for a write's copies into the secondary indexes, for the benchmarks' cost meter:
// dynalite reports a write's units for the table only.
import { SECONDARY_INDEXES, type SecondaryIndex, TABLE_SCHEMA } from '../shared/adapters/dynamo/table';

type Item = Record<string, unknown>;

/** A value's size as DynamoDB counts it: UTF-8 bytes of strings, one byte per two significant digits of a number. */
const valueSize = (value: unknown): number => {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value)
      .replace(/e.*$/i, '')
      .replace(/[-.]/g, '')
      .replace(/^0+|0+$/g, '');
    return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, element) => sum + valueSize(element), 0);
  if (Array.isArray(value))
    return 3 + value.reduce((sum: number, element) => sum + 1 + valueSize(element), 0);
  if (value !== null && typeof value === 'object') return 3 + itemSize(value as Item);
  return 1; // boolean, null
};

/** An item's size: each attribute's name and value. */
export const itemSize = (item: Item): number =>
  Object.entries(item).reduce(
    (sum, [name, value]) => (value === undefined ? sum : sum + Buffer.byteLength(name) + valueSize(value)),
    0,
  );

const inIndex = (item: Item, index: SecondaryIndex) =>
  item[index.partitionKey] !== undefined && item[index.sortKey] !== undefined;

/** The index's copy of an item: its keys, the table's keys and the projected attributes. */
const entryOf = (item: Item, index: SecondaryIndex): Item => {
  if (index.projected === 'ALL') return item;
  const names = [TABLE_SCHEMA.partitionKey, TABLE_SCHEMA.sortKey, index.partitionKey, index.sortKey];
  return Object.fromEntries([...names, ...index.projected].map((name) => [name, item[name]]));
};

/**
 * Write units DynamoDB bills each index for one successful write to `item` (the item put, or the item as it was
 * before an update or delete): the index's copy, 1 unit per KB rounded up, when the item is in the index. An index
 * projecting ALL holds the whole item, so its write costs what the table's did (`tableUnits`). Every write the
 * service makes to an indexed item changes a projected attribute or the index keys, so each one is counted; an
 * item in no index (cursors, leases, counters) costs none. An update that creates its item has no item before it and
 * is not counted unless its caller asked for the new one: in this service only registering an account does that,
 * at boot or by `npm run admin`, never inside a benchmark's measured window.
 */
export const indexWriteUnits = (item: Item | undefined, tableUnits: number): Map<string, number> => {
  const units = new Map<string, number>();
  if (!item) return units;
  for (const index of SECONDARY_INDEXES) {
    if (!inIndex(item, index)) continue;
    units.set(
      index.name,
      index.projected === 'ALL' ? tableUnits : Math.ceil(itemSize(entryOf(item, index)) / 1024),
    );
  }
  return units;
};
