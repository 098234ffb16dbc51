// The SPF syntax lint (RFC 7208 section 12): records that parse, and the errors mailauth reads past, each named.
import { describe, expect, it } from 'vitest';
import { spfSyntaxError } from '../../shared/audit/spfSyntax';

describe('SPF syntax lint', () => {
  it.each([
    'v=spf1 -all',
    'v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 a mx/24 a:mail.example.com//64 ~all',
    'v=spf1 include:_spf.example.com exists:%{ir}.%{l1r+-}._spf.%{d} redirect=_spf.example.net',
    'v=spf1 a:foo:bar/baz.example.com -all',
    'v=spf1 a:%{H} ptr:example.com ?all exp=explain.%{d2} moo.cow=%{l}',
    'v=spf1 ip6:::ffff:1.2.3.4 ip4:1.2.3.4/32 -all',
  ])('parses %s', (record) => {
    expect(spfSyntaxError(record)).toBeUndefined();
  });

  it.each([
    ['v=spf1 ip4:192.0.2.1/33 -all', 'ip4:192.0.2.1/33'],
    ['v=spf1 ip4:1.2.3.4/032 -all', 'ip4:1.2.3.4/032'],
    ['v=spf1 foo:bar -all', 'foo:bar'],
    ['v=spf1 ip4:127.0.0.1 -all.', '-all.'],
    ['v=spf1 a//129 -all', 'a//129'],
    ['v=spf1 a:111.222.33.44', 'a:111.222.33.44'],
    ['v=spf1 include: -all', 'include:'],
    ['v=spf1 ip6:1.2.3.4 -all', 'ip6:1.2.3.4'],
    ['v=spf1 -all exp=a.example.com exp=b.example.com', 'exp= appears twice'],
    ['v=spf1 -all foo=%abc', 'foo=%abc'],
    ['v=spf1 exists:%{x}.example.com', 'exists:%{x}.example.com'],
  ])('finds the error in %s', (record, term) => {
    expect(spfSyntaxError(record)).toContain(term);
  });

  it('reads a long hostile record term by term, with a bound on the terms', () => {
    expect(spfSyntaxError(`v=spf1 a:${'1-'.repeat(4000)}1 -all`)).toContain('is malformed');
    expect(spfSyntaxError(`v=spf1 ${'a '.repeat(70)}-all`)).toBe('more than 64 terms');
  });
});
