// A tiny evaluator of CloudWatch metric math's arithmetic, for tests that check the dashboard's expressions by
// evaluating the very strings the stack synthesizes: numbers, metric ids, + - * / and ^ (power, right-associative,
// above * and /), parentheses. Nothing else is accepted (no function, no unary minus): an expression that grows
// one fails the test instead of going unchecked. Division follows IEEE 754, so 0 / 0 is NaN: no point to draw.

type Token = { kind: 'number'; value: number } | { kind: 'id'; name: string } | { kind: 'op'; op: string };

const OPS = new Set(['+', '-', '*', '/', '^', '(', ')']);
const isDigit = (char: string) => char >= '0' && char <= '9';
const isIdStart = (char: string) => /^[A-Za-z_]$/.test(char);

const tokensOf = (text: string): Token[] => {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at] ?? '';
    if (char === ' ') {
      at++;
    } else if (OPS.has(char)) {
      tokens.push({ kind: 'op', op: char });
      at++;
    } else if (isDigit(char) || char === '.') {
      // A JavaScript number's own spelling (the stack writes constants with String(number)): digits, a point, an
      // exponent.
      const start = at;
      while (at < text.length && (isDigit(text[at] ?? '') || text[at] === '.')) at++;
      if (text[at] === 'e' || text[at] === 'E') {
        at++;
        if (text[at] === '+' || text[at] === '-') at++;
        while (at < text.length && isDigit(text[at] ?? '')) at++;
      }
      const value = Number(text.slice(start, at));
      if (Number.isNaN(value)) throw new Error(`not a number at ${start}: ${text.slice(start, at)}`);
      tokens.push({ kind: 'number', value });
    } else if (isIdStart(char)) {
      const start = at;
      while (at < text.length && /^[A-Za-z0-9_]$/.test(text[at] ?? '')) at++;
      tokens.push({ kind: 'id', name: text.slice(start, at) });
    } else throw new Error(`unexpected "${char}" at ${at}`);
  }
  return tokens;
};

/** The expression's value with each metric id's value for one period. */
export const evaluateMetricMath = (expression: string, values: Readonly<Record<string, number>>): number => {
  const tokens = tokensOf(expression);
  let at = 0;
  const peek = () => tokens[at];
  const isOp = (op: string) => {
    const token = peek();
    return token?.kind === 'op' && token.op === op;
  };
  const expect = (op: string) => {
    if (!isOp(op)) throw new Error(`expected "${op}" at token ${at} of ${expression}`);
    at++;
  };
  const primary = (): number => {
    const token = peek();
    at++;
    if (token?.kind === 'number') return token.value;
    if (token?.kind === 'id') {
      if (isOp('(')) throw new Error(`function ${token.name} is not evaluated here`);
      const value = values[token.name];
      if (value === undefined) throw new Error(`no value for metric id ${token.name}`);
      return value;
    }
    if (token?.kind === 'op' && token.op === '(') {
      const inner = sum();
      expect(')');
      return inner;
    }
    throw new Error(`unexpected token ${at - 1} of ${expression}`);
  };
  const power = (): number => {
    const base = primary();
    if (!isOp('^')) return base;
    at++;
    return base ** power();
  };
  const product = (): number => {
    let value = power();
    while (isOp('*') || isOp('/')) {
      const op = (peek() as { op: string }).op;
      at++;
      const right = power();
      value = op === '*' ? value * right : value / right;
    }
    return value;
  };
  const sum = (): number => {
    let value = product();
    while (isOp('+') || isOp('-')) {
      const op = (peek() as { op: string }).op;
      at++;
      const right = product();
      value = op === '+' ? value + right : value - right;
    }
    return value;
  };
  const value = sum();
  if (at !== tokens.length) throw new Error(`trailing tokens from ${at} in ${expression}`);
  return value;
};
