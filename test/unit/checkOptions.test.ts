// The check command's new options: DKIM signing takes all three of key, selector and domain, and the report page
// is --html FILE; the message's HTML body is --html-body / --html-file.
import { describe, expect, it } from 'vitest';
import { parseCheckOptions, UsageError } from '../../shared/cli/check/options';

const settings = { serviceUrl: undefined, apiKey: 'k', smtpPassword: undefined };
const compose = [
  '--smtp',
  'smtp://127.0.0.1:2525',
  '--from',
  'a@sender.test',
  '--subject',
  's',
  '--text',
  't',
];
/** The composed message signed with k.pem under `selector` and `domain`. */
const withDkim = (selector: string, domain: string) => [
  ...compose,
  '--dkim-key',
  'k.pem',
  '--dkim-selector',
  selector,
  '--dkim-domain',
  domain,
];

describe('check options: DKIM and the report page', () => {
  it('takes --dkim-key, --dkim-selector and --dkim-domain together', () => {
    const options = parseCheckOptions(withDkim('s1', 'sender.test'), settings);
    expect(options.send?.dkim).toEqual({ keyFile: 'k.pem', selector: 's1', domain: 'sender.test' });
    expect(parseCheckOptions(compose, settings).send?.dkim).toBeUndefined();
  });

  it('refuses one without the others, a selector or domain that is no DNS name, and DKIM with --no-send', () => {
    expect(() => parseCheckOptions([...compose, '--dkim-key', 'k.pem'], settings)).toThrow(
      /needs all three of --dkim-key FILE, --dkim-selector S and --dkim-domain D/,
    );
    expect(() => parseCheckOptions(withDkim('s1;x', 'sender.test'), settings)).toThrow(/--dkim-selector/);
    expect(() => parseCheckOptions(withDkim('s1', 'localhost'), settings)).toThrow(/--dkim-domain/);
    expect(() => parseCheckOptions(['--no-send', '--dkim-key', 'k.pem'], settings)).toThrow(UsageError);
  });

  it('--html names the report page; --html-body is the message body; markup given to --html is refused', () => {
    const options = parseCheckOptions(
      [
        '--smtp',
        'smtp://h',
        '--from',
        'a@b.c',
        '--subject',
        's',
        '--html-body',
        '<p>hi</p>',
        '--html',
        'r.html',
      ],
      settings,
    );
    expect(options.htmlFile).toBe('r.html');
    expect(options.send?.message).toMatchObject({ kind: 'compose', html: { inline: '<p>hi</p>' } });
    expect(parseCheckOptions(['--no-send', '--html', 'r.html'], settings).htmlFile).toBe('r.html');
    expect(() => parseCheckOptions(['--no-send', '--html', '<p>hi</p>'], settings)).toThrow(/--html-body/);
  });
});
