// Owns listing a header block's fields for the audit: every value of a name topmost first, each capped, with a bound
// on how many are read, so a block of ten thousand forged fields costs one linear pass.
import { fieldAt, unfolded } from '../scanner/headers';

const patterns = new Map<string, RegExp>();

const patternOf = (name: string): RegExp => {
  let pattern = patterns.get(name);
  if (!pattern) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    // As the scanner's valueInBlock: a line that is no continuation; each attempt stops at the next newline.
    pattern = new RegExp(`(?:^|\\n)[^\\S \\t\\n]*${escaped}[^\\S\\n]*:`, 'gi');
    patterns.set(name, pattern);
  }
  return pattern;
};

/**
 * Up to `max` values of `name`, topmost first, each at most `cap` raw characters; `count` counts them all, unless
 * `countAll` is false: then the pass stops at the `max`th.
 */
export const fieldValues = (
  block: string,
  name: string,
  max: number,
  cap: number,
  countAll = true,
): { values: string[]; count: number } => {
  const pattern = patternOf(name);
  pattern.lastIndex = 0;
  const values: string[] = [];
  let count = 0;
  for (let found = pattern.exec(block); found; found = pattern.exec(block)) {
    const start = found.index + (block[found.index] === '\n' ? 1 : 0);
    const field = fieldAt(block, start);
    if (field.name !== undefined) {
      count++;
      if (values.length < max)
        values.push(
          unfolded(block, { ...field, valueEnd: Math.min(field.valueEnd, field.valueStart + cap) }),
        );
      if (!countAll && values.length >= max) break;
    }
    pattern.lastIndex = Math.max(pattern.lastIndex, field.end - 1);
  }
  return { values, count };
};
