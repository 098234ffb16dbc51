// The check command's `--assert` grammar: every accepted form read into what it means, and every wrong one refused
// with a message naming the problem and listing the accepted forms; the tokenizer stays linear on long input.
import { describe, expect, it } from 'vitest';
import {
  AssertionSyntaxError,
  MAX_ASSERTIONS,
  parseAssertion,
  parseAssertions,
} from '../../shared/cli/placement/assertions';

const refusal = (expression: string): string => {
  try {
    parseAssertion(expression);
  } catch (error) {
    expect(error).toBeInstanceOf(AssertionSyntaxError);
    return (error as Error).message;
  }
  throw new Error(`"${expression}" was accepted`);
};

describe('--assert grammar', () => {
  it('reads a provider placement as a rate over that provider', () => {
    expect(parseAssertion('gmail.inbox >= 0.8')).toEqual({
      kind: 'share',
      text: 'gmail.inbox >= 0.8',
      provider: 'gmail',
      placement: 'inbox',
      op: '>=',
      rate: 0.8,
    });
    expect(parseAssertion('outlook.spam == 0')).toMatchObject({
      provider: 'outlook',
      placement: 'spam',
      op: '==',
      rate: 0,
    });
    expect(parseAssertion('microsoft365.promotions<5%')).toMatchObject({
      placement: 'promotions',
      op: '<',
      rate: 0.05,
    });
    expect(parseAssertion('  Yahoo . Primary  !=  .5 ')).toMatchObject({
      text: 'yahoo.primary != .5',
      provider: 'yahoo',
      placement: 'primary',
      rate: 0.5,
    });
  });

  it('reads inbox_rate and a bare placement as rates over every account', () => {
    expect(parseAssertion('inbox_rate >= 0.9')).toMatchObject({
      provider: undefined,
      placement: 'inbox',
      rate: 0.9,
    });
    expect(parseAssertion('spam <= 10%')).toMatchObject({
      provider: undefined,
      placement: 'spam',
      op: '<=',
      rate: 0.1,
    });
    expect(parseAssertion('pending > 0')).toMatchObject({ placement: 'pending', op: '>' });
  });

  it('reads every provider preset and every category', () => {
    for (const provider of ['gmail', 'outlook', 'microsoft365', 'yahoo', 'aol', 'icloud', 'imap'])
      for (const placement of [
        'inbox',
        'primary',
        'spam',
        'promotions',
        'updates',
        'social',
        'forums',
        'trash',
        'unknown',
        'pending',
      ])
        expect(parseAssertion(`${provider}.${placement} >= 1`)).toMatchObject({ provider, placement });
  });

  it('reads auth.METHOD == RESULT and != RESULT', () => {
    expect(parseAssertion('auth.dkim == pass')).toEqual({
      kind: 'auth',
      text: 'auth.dkim == pass',
      method: 'dkim',
      op: '==',
      result: 'pass',
    });
    expect(parseAssertion('auth.spf != softfail')).toMatchObject({
      method: 'spf',
      op: '!=',
      result: 'softfail',
    });
    expect(parseAssertion('AUTH.DMARC==PASS')).toMatchObject({ method: 'dmarc', result: 'pass' });
  });

  it('reads seconds_to_deliver.pNN and .max', () => {
    expect(parseAssertion('seconds_to_deliver.p95 <= 60')).toEqual({
      kind: 'delivery',
      text: 'seconds_to_deliver.p95 <= 60',
      statistic: 'p95',
      quantile: 0.95,
      op: '<=',
      seconds: 60,
    });
    expect(parseAssertion('seconds_to_deliver.max < 2.5')).toMatchObject({ quantile: 1, seconds: 2.5 });
    expect(parseAssertion('seconds_to_deliver.p100 <= 1')).toMatchObject({ quantile: 1 });
    expect(parseAssertion('seconds_to_deliver.p1 <= 1')).toMatchObject({ quantile: 0.01 });
  });

  it('reads no_regression alone', () => {
    expect(parseAssertion('no_regression')).toEqual({ kind: 'noRegression', text: 'no_regression' });
  });

  it.each([
    ['gmail.inbx >= 0.8', '"inbx" is not a placement'],
    ['gmial.inbox >= 0.8', '"gmial" is not a provider'],
    ['gmail >= 0.8', '"gmail" needs a placement'],
    ['gmail.inbox = 0.8', '"=" is not a comparison: write =='],
    ['gmail.inbox => 0.8', '"=>" is not a comparison: write >='],
    ['gmail.inbox >=', '"gmail.inbox >=" needs a value'],
    ['gmail.inbox >= 80', '80 is not a rate'],
    ['gmail.inbox >= 101%', '101% is not a rate'],
    ['gmail.inbox >= pass', 'compares with a rate'],
    ['gmail.inbox', 'must be followed by a comparison'],
    ['gmail.inbox >= 0.8 0.9', '"0.9" after the value'],
    ['gmail.inbox >= 0.8x', 'is not a number'],
    ['gmail.inbox >= 1.', 'is not a number'],
    ['auth.dkim >= pass', 'compares with == or != only'],
    ['auth.dkim == pas', '"pas" is not an authentication result'],
    ['auth.dkim == 1', '"1" is not an authentication result'],
    ['auth.arc == pass', 'auth takes one of spf, dkim, dmarc'],
    ['seconds_to_deliver.p0 <= 60', 'takes a statistic'],
    ['seconds_to_deliver.p101 <= 60', 'takes a statistic'],
    ['seconds_to_deliver.mean <= 60', 'takes a statistic'],
    ['seconds_to_deliver.p95 <= 60%', 'compares with a number of seconds'],
    ['no_regression == 1', 'no_regression takes no comparison'],
    ['inbox_rate >= 0.9; rm -rf /', '";" is not part of any accepted form'],
    ['inbox_rate ≥ 0.9', '"≥" is not part of any accepted form'],
    ['inbox_rate >= 0.9\u001b[31m', '"\\u001b" is not part of any accepted form'],
    ['', 'the expression is empty'],
    ['>= 0.8', 'it must start with a name'],
    ['gmail. >= 0.8', 'a name must follow "."'],
    ['whatever >= 1', '"whatever" is not a name any form accepts'],
  ])('refuses %j: %s, and lists the accepted forms', (expression, problem) => {
    const message = refusal(expression);
    expect(message).toContain(problem);
    expect(message).toContain('accepted forms:');
    expect(message).toContain('PROVIDER.PLACEMENT OP RATE');
    expect(message).toContain('PROVIDER: gmail, outlook, microsoft365, yahoo, aol, icloud, imap');
    expect(message).not.toContain('\u001b');
  });

  it('refuses an expression longer than any form without reading it, and too many of them', () => {
    const long = `inbox_rate >= 0.9${' '.repeat(500)}`;
    expect(refusal(long)).toContain('longer than 200 characters');
    expect(refusal(long).length).toBeLessThan(1500);
    expect(() => parseAssertions(Array.from({ length: MAX_ASSERTIONS + 1 }, () => 'spam == 0'))).toThrow(
      `at most ${MAX_ASSERTIONS} --assert expressions`,
    );
    expect(parseAssertions(Array.from({ length: MAX_ASSERTIONS }, () => 'spam == 0'))).toHaveLength(
      MAX_ASSERTIONS,
    );
  });
});
