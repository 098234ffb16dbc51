// Owns the made-up keys the fairness scenario floods with (fairLoad.ts): 2,000 distinct keys of every shape a
// stranger may present, each as the Bearer syntax allows, so each one reaches the key check rather than a 400.
import { randomBytes } from 'node:crypto';

const MADE_UP_KEY_COUNT = 2000;
/** RFC 6750's b64token characters: every one-character key there is. */
const ONE_CHARACTER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/';
/** The longest key the API takes (apiKey.ts). */
const LONG = 512;

type Shape = 'oneCharacter' | 'long' | 'base64' | 'ipkUnchecksummed' | 'ipkChecksummed';

const ofShape = (shape: Exclude<Shape, 'oneCharacter'>, index: number): string => {
  const random = randomBytes(32);
  switch (shape) {
    case 'long':
      return `${random.toString('hex')}${String(index).padStart(8, '0')}`.padEnd(
        LONG,
        random.toString('base64url'),
      );
    case 'base64':
      // Standard base64, `+`, `/` and `=` included.
      return random.toString('base64');
    case 'ipkUnchecksummed':
      // An older key's shape: the prefix and 43 characters, no checksum; looked up as ever.
      return `ipk_${random.toString('base64url')}`;
    case 'ipkChecksummed':
      // The issued shape's length, its six checksum characters made up.
      return `ipk_${random.toString('base64url')}${randomBytes(6).toString('base64url').slice(0, 6)}`;
  }
};

/** MADE_UP_KEY_COUNT fresh distinct keys, the shapes interleaved, and how many of each. */
export const madeUpKeys = (): { keys: string[]; shapes: Record<Shape, number> } => {
  const keys = [...ONE_CHARACTER];
  const rest: Exclude<Shape, 'oneCharacter'>[] = ['long', 'base64', 'ipkUnchecksummed', 'ipkChecksummed'];
  const shapes: Record<Shape, number> = {
    oneCharacter: keys.length,
    long: 0,
    base64: 0,
    ipkUnchecksummed: 0,
    ipkChecksummed: 0,
  };
  for (let index = 0; keys.length < MADE_UP_KEY_COUNT; index++) {
    const shape = rest[index % rest.length] as Exclude<Shape, 'oneCharacter'>;
    keys.push(ofShape(shape, index));
    shapes[shape]++;
  }
  // One-character keys spread through the rest, so every window of the flood sees every shape.
  const spread: string[] = [];
  const others = keys.slice(ONE_CHARACTER.length);
  const step = Math.ceil(others.length / ONE_CHARACTER.length);
  let one = 0;
  others.forEach((key, at) => {
    if (at % step === 0 && one < ONE_CHARACTER.length) spread.push(ONE_CHARACTER[one++] as string);
    spread.push(key);
  });
  spread.push(...ONE_CHARACTER.slice(one));
  if (new Set(spread).size !== MADE_UP_KEY_COUNT) throw new Error('made-up keys are not all distinct');
  return { keys: spread, shapes };
};
