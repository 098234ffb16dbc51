// Owns reading a typed attribute from a stored item, failing with the item's key and the attribute's name.
import type { Item } from './keys';

export const str = (item: Item, name: string): string => {
  const value = item[name];
  if (typeof value !== 'string') throw new Error(`stored item ${String(item.pk)} has no string ${name}`);
  return value;
};
export const num = (item: Item, name: string): number => {
  const value = item[name];
  if (typeof value !== 'number') throw new Error(`stored item ${String(item.pk)} has no number ${name}`);
  return value;
};
