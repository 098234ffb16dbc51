// What the owner pastes back after consenting: a bare code, or the whole redirect address, checked against state.
import { describe, expect, it } from 'vitest';
import { codeFromPaste } from '../../shared/cli/oauthConsent';
import { InvalidInputError } from '../../shared/domain/errors';

describe('codeFromPaste', () => {
  it('takes a bare code, or the code from the redirect address when its state matches', () => {
    expect(codeFromPaste('M.C123_abc', 's1')).toBe('M.C123_abc');
    expect(codeFromPaste('http://localhost/?code=M.C123&state=s1', 's1')).toBe('M.C123');
    expect(codeFromPaste('code=4%2F0Ab&scope=x', 's1')).toBe('4/0Ab');
  });

  it('refuses another consent, an error from the provider, and an address without a code', () => {
    expect(() => codeFromPaste('http://localhost/?code=x&state=other', 's1')).toThrow(/state does not match/);
    expect(() => codeFromPaste('http://localhost/?code=&error=access_denied&state=s1', 's1')).toThrow(
      InvalidInputError,
    );
    expect(() => codeFromPaste('http://localhost/?code=&state=s1', 's1')).toThrow(/no code/);
  });
});
