// Owns the grammar of the check command's `--assert` expressions: a hand-written tokenizer and parser (no regex runs
// over the expression), every mistake an AssertionSyntaxError naming the problem and the accepted forms.
import { CATEGORIES, type Category } from '../../domain/categories';
import { PROVIDERS, type Provider } from '../../providers/providerPreset';

export const COMPARISONS = ['>=', '<=', '>', '<', '==', '!='] as const;
export type Comparison = (typeof COMPARISONS)[number];

/** `inbox` is primary + updates, as everywhere in the service. */
export type Placement = Category | 'inbox';

export const AUTH_METHODS = ['spf', 'dkim', 'dmarc'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

/** RFC 8601 result words (and SPF's older hardfail): a word outside the list is a typo, not a result to wait for. */
const AUTH_RESULTS = [
  'pass',
  'fail',
  'softfail',
  'hardfail',
  'neutral',
  'none',
  'policy',
  'temperror',
  'permerror',
] as const;

export type Assertion =
  | {
      kind: 'share';
      text: string;
      provider: Provider | undefined;
      placement: Placement;
      op: Comparison;
      rate: number;
    }
  | { kind: 'auth'; text: string; method: AuthMethod; op: '==' | '!='; result: string }
  | { kind: 'delivery'; text: string; statistic: string; quantile: number; op: Comparison; seconds: number }
  | { kind: 'noRegression'; text: string };

const ASSERTION_FORMS = [
  'PROVIDER.PLACEMENT OP RATE   e.g. gmail.inbox >= 0.8, outlook.spam == 0',
  'PLACEMENT OP RATE            e.g. spam <= 10%   (over every account)',
  'inbox_rate OP RATE           e.g. inbox_rate >= 0.9',
  'auth.METHOD == RESULT        e.g. auth.dkim == pass   (METHOD spf, dkim or dmarc; or !=)',
  'seconds_to_deliver.STAT OP SECONDS   e.g. seconds_to_deliver.p95 <= 60   (STAT p1..p100 or max)',
  'no_regression                (with --baseline FILE)',
];

const FORMS_TEXT = [
  `accepted forms:\n  ${ASSERTION_FORMS.join('\n  ')}`,
  `PROVIDER: ${PROVIDERS.join(', ')}`,
  `PLACEMENT: inbox (primary + updates), ${CATEGORIES.join(', ')}`,
  `OP: ${COMPARISONS.join(' ')}; RATE: 0 to 1 or 0% to 100%`,
].join('\n');

/** An expression longer than any accepted form is refused before it is read. */
const MAX_EXPRESSION_LENGTH = 200;
export const MAX_ASSERTIONS = 50;

export class AssertionSyntaxError extends Error {
  override name = 'AssertionSyntaxError';
}

type Token =
  | { type: 'word'; text: string }
  | { type: 'number'; text: string; value: number; percent: boolean }
  | { type: 'dot'; text: '.' }
  | { type: 'op'; text: Comparison };

const isDigit = (c: string) => c >= '0' && c <= '9';
const isWordChar = (c: string) => (c >= 'a' && c <= 'z') || isDigit(c) || c === '_';
const isSpace = (c: string) => c === ' ' || c === '\t';

/** One pass over at most MAX_EXPRESSION_LENGTH characters; each character is looked at a bounded number of times. */
const tokenize = (text: string, problem: (what: string) => never): Token[] => {
  const tokens: Token[] = [];
  const source = text.toLowerCase();
  let at = 0;
  while (at < source.length) {
    const c = source.charAt(at);
    if (isSpace(c)) {
      at++;
    } else if (isDigit(c) || (c === '.' && isDigit(source.charAt(at + 1)) && tokens.at(-1)?.type === 'op')) {
      const start = at;
      while (isDigit(source.charAt(at))) at++;
      if (source.charAt(at) === '.') {
        at++;
        if (!isDigit(source.charAt(at))) problem(`"${source.slice(start, at)}" is not a number`);
        while (isDigit(source.charAt(at))) at++;
      }
      const digits = source.slice(start, at);
      const percent = source.charAt(at) === '%';
      if (percent) at++;
      if (isWordChar(source.charAt(at))) problem(`"${source.slice(start, at + 1)}…" is not a number`);
      tokens.push({ type: 'number', text: source.slice(start, at), value: Number(digits), percent });
    } else if (isWordChar(c)) {
      const start = at;
      while (isWordChar(source.charAt(at))) at++;
      tokens.push({ type: 'word', text: source.slice(start, at) });
    } else if (c === '.') {
      at++;
      tokens.push({ type: 'dot', text: '.' });
    } else {
      const two = source.slice(at, at + 2);
      const op = COMPARISONS.find((candidate) => candidate === two) ?? COMPARISONS.find((one) => one === c);
      if (!op) {
        if (two === '=>' || two === '=<') problem(`"${two}" is not a comparison: write ${two.charAt(1)}=`);
        if (c === '=') problem('"=" is not a comparison: write == (or >=, <=, !=)');
        problem(`"${printableChar(text.charAt(at))}" is not part of any accepted form`);
      }
      at += op.length;
      tokens.push({ type: 'op', text: op });
    }
  }
  return tokens;
};

const printableChar = (c: string) => {
  const code = c.codePointAt(0) ?? 0;
  return code < 0x20 || code === 0x7f ? `\\u${code.toString(16).padStart(4, '0')}` : c;
};

const isPlacement = (word: string): word is Placement =>
  word === 'inbox' || (CATEGORIES as readonly string[]).includes(word);
const isProvider = (word: string): word is Provider => (PROVIDERS as readonly string[]).includes(word);

/** `p95` → 0.95, `max` → 1. */
const quantileOf = (word: string): number | undefined => {
  if (word === 'max') return 1;
  if (word.length < 2 || word.length > 4 || word.charAt(0) !== 'p') return undefined;
  const digits = word.slice(1);
  if (![...digits].every(isDigit)) return undefined;
  const value = Number(digits);
  return value >= 1 && value <= 100 ? value / 100 : undefined;
};

/** Reads one `--assert` expression; throws AssertionSyntaxError saying what is wrong and what is accepted. */
export const parseAssertion = (raw: string): Assertion => {
  const shown = [...raw.slice(0, MAX_EXPRESSION_LENGTH)].map(printableChar).join('');
  const problem = (what: string): never => {
    throw new AssertionSyntaxError(`--assert "${shown}": ${what}\n${FORMS_TEXT}`);
  };
  if (raw.length > MAX_EXPRESSION_LENGTH)
    problem(`longer than ${MAX_EXPRESSION_LENGTH} characters, which no accepted form is`);
  const tokens = tokenize(raw, problem);
  const text = tokens
    .map((token) => token.text)
    .join(' ')
    .replaceAll(' . ', '.');
  if (tokens.length === 0) problem('the expression is empty');

  const path: string[] = [];
  let at = 0;
  for (;;) {
    const token = tokens[at];
    if (token?.type !== 'word') problem(at === 0 ? 'it must start with a name' : 'a name must follow "."');
    path.push((token as Token).text);
    at++;
    if (tokens[at]?.type !== 'dot') break;
    at++;
  }
  const name = path.join('.');
  if (name === 'no_regression') {
    if (at < tokens.length) problem('no_regression takes no comparison');
    return { kind: 'noRegression', text: name };
  }
  const opToken = tokens[at];
  if (opToken?.type !== 'op')
    problem(`"${name}" must be followed by a comparison (${COMPARISONS.join(' ')})`);
  const op = (opToken as Token & { type: 'op' }).text;
  const valueToken = tokens[at + 1];
  if (!valueToken) problem(`"${name} ${op}" needs a value`);
  if (tokens.length > at + 2) problem(`"${tokens[at + 2]?.text}" after the value is not part of any form`);
  const value = valueToken as Token;

  const rate = (): number => {
    if (value.type !== 'number') return problem(`"${name}" compares with a rate from 0 to 1 (or 0% to 100%)`);
    const fraction = value.percent ? value.value / 100 : value.value;
    if (fraction > 1) return problem(`${value.text} is not a rate: rates run from 0 to 1 (or 0% to 100%)`);
    return fraction;
  };
  const [first = '', second, third] = path;
  if (path.length === 1 && first === 'inbox_rate')
    return { kind: 'share', text, provider: undefined, placement: 'inbox', op, rate: rate() };
  if (path.length === 1 && isPlacement(first))
    return { kind: 'share', text, provider: undefined, placement: first, op, rate: rate() };
  if (path.length === 2 && isProvider(first)) {
    if (second === undefined || !isPlacement(second))
      return problem(`"${second}" is not a placement: inbox or one of ${CATEGORIES.join(', ')}`);
    return { kind: 'share', text, provider: first, placement: second, op, rate: rate() };
  }
  if (first === 'auth') {
    const method = AUTH_METHODS.find((known) => known === second);
    if (path.length !== 2 || !method)
      return problem(`auth takes one of ${AUTH_METHODS.join(', ')}: auth.dkim`);
    if (op !== '==' && op !== '!=') return problem(`auth.${method} compares with == or != only`);
    const result = AUTH_RESULTS.find((known) => known === value.text);
    if (value.type !== 'word' || !result)
      return problem(`"${value.text}" is not an authentication result: one of ${AUTH_RESULTS.join(', ')}`);
    return { kind: 'auth', text, method, op, result };
  }
  if (first === 'seconds_to_deliver') {
    const quantile = second === undefined ? undefined : quantileOf(second);
    if (path.length !== 2 || quantile === undefined || third !== undefined)
      return problem('seconds_to_deliver takes a statistic: p50, p95 (any p1 to p100) or max');
    if (value.type !== 'number' || value.percent)
      return problem(`seconds_to_deliver.${second} compares with a number of seconds`);
    return { kind: 'delivery', text, statistic: second as string, quantile, op, seconds: value.value };
  }
  if (path.length === 1 && isProvider(first))
    return problem(`"${first}" needs a placement: ${first}.inbox, ${first}.spam, …`);
  if (path.length === 2 && isPlacement(second ?? ''))
    return problem(`"${first}" is not a provider: one of ${PROVIDERS.join(', ')}`);
  return problem(`"${name}" is not a name any form accepts`);
};

/** Reads every `--assert` given; refuses more than MAX_ASSERTIONS. */
export const parseAssertions = (raw: readonly string[]): Assertion[] => {
  if (raw.length > MAX_ASSERTIONS)
    throw new AssertionSyntaxError(`at most ${MAX_ASSERTIONS} --assert expressions, not ${raw.length}`);
  return raw.map(parseAssertion);
};
