// The check command's options: DKIM signing takes all three of key, selector and domain, the report page is
// --html FILE (the message's HTML body is --html-body / --html-file), and plain http to another host needs --insecure.
import { describe, expect, it, vi } from 'vitest';
import { parseSmtpUrl } from '../../shared/adapters/smtp/smtp';
import { parseCheckOptions, UsageError } from '../../shared/cli/placement/options';
import { runCheck } from '../../shared/cli/placementCheck';
import { loadCliSettings } from '../../shared/config';

const settings = { serviceUrl: undefined, apiKey: 'k', smtpPassword: undefined };
const cliSettings = loadCliSettings({});
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

describe('check options: the API key never crosses the network in clear text unasked', () => {
  const noSend = (url: string, ...extra: string[]) =>
    parseCheckOptions(['--no-send', '--url', url, ...extra], settings);

  it('refuses plain http to a host that is not this machine, with one line saying why', () => {
    for (const url of ['http://inbox.example:3000', 'http://192.0.2.10', 'http://[2001:db8::1]:3000']) {
      expect(() => noSend(url)).toThrow(UsageError);
      expect(() => noSend(url)).toThrow(/plain http .* not this machine: use https, or pass --insecure/);
    }
  });

  it('takes https anywhere, plain http to loopback, and plain http anywhere with --insecure', () => {
    expect(noSend('https://inbox.example').url).toBe('https://inbox.example');
    for (const url of [
      'http://127.0.0.1:3000',
      'http://127.8.9.10',
      'http://localhost:3000',
      'http://[::1]:3000',
    ])
      expect(noSend(url).url).toBe(url);
    expect(noSend('http://inbox.example:3000', '--insecure').url).toBe('http://inbox.example:3000');
  });

  it('never repeats a URL that may hold a password, and refuses one that holds a user or password', () => {
    for (const url of [
      'http://u:pw-Zq81kX@[bad',
      'ftp://u:pw-Zq81kX@h',
      'https://u:pw-Zq81kX@inbox.example',
    ]) {
      let message = '';
      try {
        noSend(url);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^--url must /);
      expect(message).not.toContain('Zq81kX');
    }
    expect(() => parseSmtpUrl('smtp://u:pw-Zq81kX@[bad', undefined)).toThrow(
      /^--smtp must look like smtp:\/\/\S+ or smtps:\/\/… \(it is no URL\)$/,
    );
  });

  it('the check command exits 2 on it and sends nothing', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const lines: string[] = [];
    try {
      const code = await runCheck(['--no-send', '--url', 'http://inbox.example:3000'], {
        settings: { ...cliSettings, apiKey: 'ipk_never-sent-key-0123456789' },
        stdout: (text) => lines.push(text),
        stderr: { write: (text: string) => lines.push(text) },
      });
      expect(code).toBe(2);
      expect(fetchSpy).not.toHaveBeenCalled();
    } finally {
      fetchSpy.mockRestore();
    }
    expect(lines.join('')).toMatch(
      /^check: refusing to send the API key over plain http to inbox\.example:3000/,
    );
    expect(lines.join('').trim().split('\n')).toHaveLength(1);
  });
});
