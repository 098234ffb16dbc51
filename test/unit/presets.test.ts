// Provider presets: where each provider's IMAP server is, how to log in, which folders mean spam and trash, what
// an account's own settings override, and Microsoft's delivery verdict header.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHeaderBlock } from '../../scripts/lib/referenceHeaders';
import { InvalidInputError } from '../../shared/domain/errors';
import {
  type AuthMethod,
  applyPreset,
  msDeliveryOf,
  PROVIDERS,
  type Provider,
  presetFor,
} from '../../shared/providers/presets';

const RUNS = Number.parseInt(process.env.PROPERTY_RUNS ?? '', 10) || 300;

const EXPECTED: Record<
  Exclude<Provider, 'imap'>,
  { host: string; auth: AuthMethod[]; junk: string[]; trash: string[] }
> = {
  gmail: {
    host: 'imap.gmail.com',
    auth: ['app-password', 'oauth2'],
    junk: ['[Gmail]/Spam'],
    trash: ['[Gmail]/Trash'],
  },
  outlook: {
    host: 'outlook.office365.com',
    auth: ['oauth2'],
    junk: ['Junk Email'],
    trash: ['Deleted Items'],
  },
  microsoft365: {
    host: 'outlook.office365.com',
    auth: ['oauth2'],
    junk: ['Junk Email'],
    trash: ['Deleted Items'],
  },
  yahoo: { host: 'imap.mail.yahoo.com', auth: ['app-password'], junk: ['Bulk', 'Bulk Mail'], trash: [] },
  aol: { host: 'imap.aol.com', auth: ['app-password'], junk: ['Bulk', 'Bulk Mail'], trash: [] },
  icloud: { host: 'imap.mail.me.com', auth: ['app-password'], junk: ['Junk'], trash: ['Deleted Messages'] },
};

const hintsFor = (provider: Provider, category: string) =>
  Object.entries(presetFor(provider).folderHints)
    .filter(([, mapped]) => mapped === category)
    .map(([path]) => path)
    .sort();

describe('presets', () => {
  it('lists exactly the seven providers, each with its own preset', () => {
    expect([...PROVIDERS]).toEqual(['gmail', 'outlook', 'microsoft365', 'yahoo', 'aol', 'icloud', 'imap']);
    for (const provider of PROVIDERS) expect(presetFor(provider).provider).toBe(provider);
  });

  it.each(Object.entries(EXPECTED))(
    '%s: IMAP on 993 with TLS, its login methods and folder names',
    (name, want) => {
      const preset = presetFor(name);
      expect(preset.imap).toEqual({ host: want.host, port: 993, secure: true });
      expect(preset.authMethods).toEqual(want.auth);
      expect(hintsFor(preset.provider, 'spam')).toEqual(want.junk);
      expect(hintsFor(preset.provider, 'trash')).toEqual(want.trash);
      expect(
        Object.values(preset.folderHints).every((category) => category === 'spam' || category === 'trash'),
      ).toBe(true);
    },
  );

  it('has no default server for generic IMAP, and takes a password or an OAuth2 grant there', () => {
    const preset = presetFor('imap');
    expect(preset.imap).toBeUndefined();
    expect(preset.authMethods).toEqual(['password', 'oauth2']);
    expect(preset.folderHints).toEqual({});
  });

  it('offers no password login where the provider switched basic auth off (Outlook.com, Microsoft 365)', () => {
    for (const provider of ['outlook', 'microsoft365'] as const) {
      expect(presetFor(provider).authMethods).not.toContain('app-password');
      expect(presetFor(provider).authMethods).not.toContain('password');
    }
  });

  it('carries the OAuth2 endpoints and scope of Google and of Microsoft’s consumer and work tenants', () => {
    expect(presetFor('gmail').oauth2).toEqual({
      authorizeEndpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenEndpoint: 'https://oauth2.googleapis.com/token',
      scope: 'https://mail.google.com/',
    });
    expect(presetFor('outlook').oauth2).toEqual({
      authorizeEndpoint: 'https://login.microsoftonline.com/consumers/oauth2/v2.0/authorize',
      tokenEndpoint: 'https://login.microsoftonline.com/consumers/oauth2/v2.0/token',
      scope: 'https://outlook.office.com/IMAP.AccessAsUser.All offline_access',
    });
    expect(presetFor('microsoft365').oauth2).toEqual({
      authorizeEndpoint: 'https://login.microsoftonline.com/organizations/oauth2/v2.0/authorize',
      tokenEndpoint: 'https://login.microsoftonline.com/organizations/oauth2/v2.0/token',
      scope: 'https://outlook.office.com/IMAP.AccessAsUser.All offline_access',
    });
    for (const provider of ['yahoo', 'aol', 'icloud', 'imap'] as const) {
      expect(presetFor(provider).oauth2).toBeUndefined();
    }
  });

  it('marks Yahoo as not taking plus addresses, and Gmail, Outlook.com and iCloud as taking them', () => {
    expect(presetFor('yahoo').quirks.plusAddressing.value).toBe('unsupported');
    expect(presetFor('aol').quirks.plusAddressing.value).toBe('unknown');
    for (const provider of ['gmail', 'outlook', 'microsoft365', 'icloud'] as const) {
      expect(presetFor(provider).quirks.plusAddressing.value).toBe('supported');
    }
  });

  it('knows which providers stamp Microsoft’s delivery verdict and which have Gmail tabs', () => {
    const stamping = PROVIDERS.filter((p) => presetFor(p).quirks.deliveryVerdictHeader.value !== undefined);
    expect(stamping).toEqual(['outlook', 'microsoft365']);
    expect(PROVIDERS.filter((p) => presetFor(p).quirks.gmailTabs.value)).toEqual(['gmail']);
  });

  it('says where every setting and quirk comes from, in one line', () => {
    for (const provider of PROVIDERS) {
      const { sources, quirks } = presetFor(provider);
      for (const source of [...Object.values(sources), ...Object.values(quirks)]) {
        expect(['documented', 'third-party', 'unconfirmed']).toContain(source.confidence);
        expect(source.note.length, provider).toBeGreaterThan(0);
        expect(source.note, provider).not.toContain('\n');
      }
    }
  });

  it('refuses an unknown provider, naming the valid ones', () => {
    expect(() => presetFor('hotmail')).toThrow(InvalidInputError);
    expect(() => presetFor('hotmail')).toThrow(
      'unknown provider "hotmail"; use one of gmail, outlook, microsoft365, yahoo, aol, icloud, imap',
    );
    expect(() => applyPreset('gmx', { email: 'seed@gmx.net' })).toThrow(/use one of gmail, outlook/);
  });

  it('reads a provider name in any case', () => {
    expect(presetFor(' Gmail ').provider).toBe('gmail');
  });
});

describe('applyPreset', () => {
  it('gives the preset’s server, the full address as user and the folder hints when nothing else is said', () => {
    expect(applyPreset('outlook', { email: 'Seed.One@Outlook.com' })).toEqual({
      provider: 'outlook',
      email: 'seed.one@outlook.com',
      imap: { host: 'outlook.office365.com', port: 993, secure: true },
      user: 'seed.one@outlook.com',
      authMethods: ['oauth2'],
      oauth2: presetFor('outlook').oauth2,
      folders: { 'Junk Email': 'spam', 'Deleted Items': 'trash' },
    });
  });

  it('lets every explicit value win over the preset', () => {
    const applied = applyPreset('gmail', {
      email: 'seed@gmail.com',
      host: '127.0.0.1',
      port: 1993,
      secure: false,
      user: 'other-login@gmail.com',
      folders: { Promotions: 'promotions' },
    });
    expect(applied.imap).toEqual({ host: '127.0.0.1', port: 1993, secure: false });
    expect(applied.user).toBe('other-login@gmail.com');
    expect(applied.folders).toEqual({
      '[Gmail]/Spam': 'spam',
      '[Gmail]/Trash': 'trash',
      Promotions: 'promotions',
    });
  });

  it('replaces a folder hint that the account names in another letter case, instead of keeping both', () => {
    // The scanner matches folder names case-insensitively and takes the first match; two keys would be a coin toss.
    const applied = applyPreset('outlook', {
      email: 'seed@outlook.com',
      folders: { 'junk email': 'unknown' },
    });
    expect(applied.folders).toEqual({ 'Deleted Items': 'trash', 'junk email': 'unknown' });
  });

  it('keeps port and TLS together: STARTTLS alone means 143, a port alone keeps TLS', () => {
    expect(applyPreset('yahoo', { email: 'seed@yahoo.com', secure: false }).imap).toEqual({
      host: 'imap.mail.yahoo.com',
      port: 143,
      secure: false,
    });
    expect(applyPreset('yahoo', { email: 'seed@yahoo.com', port: 10993 }).imap).toEqual({
      host: 'imap.mail.yahoo.com',
      port: 10993,
      secure: true,
    });
    expect(applyPreset('yahoo', { email: 'seed@yahoo.com', secure: true }).imap.port).toBe(993);
  });

  it('needs a host for generic IMAP, and says so', () => {
    expect(() => applyPreset('imap', { email: 'seed@mail.test' })).toThrow(InvalidInputError);
    expect(() => applyPreset('imap', { email: 'seed@mail.test', host: '  ' })).toThrow(
      'provider "imap" has no default server: give the IMAP host (e.g. --host imap.example.com)',
    );
    expect(applyPreset('imap', { email: 'seed@mail.test', host: 'mail.test' })).toMatchObject({
      imap: { host: 'mail.test', port: 993, secure: true },
      user: 'seed@mail.test',
      folders: {},
    });
    expect(applyPreset('imap', { email: 'seed@mail.test', host: '127.0.0.1', secure: false }).imap.port).toBe(
      143,
    );
  });

  it('logs in to iCloud with the name part of an Apple address, as Apple documents', () => {
    for (const domain of ['icloud.com', 'me.com', 'mac.com']) {
      expect(applyPreset('icloud', { email: `Emily.Parker@${domain}` }).user).toBe('emily.parker');
    }
    expect(applyPreset('icloud', { email: 'seed@icloud.com', user: 'seed@icloud.com' }).user).toBe(
      'seed@icloud.com',
    );
  });

  it('asks for the login of an iCloud+ custom-domain address instead of guessing it', () => {
    expect(() => applyPreset('icloud', { email: 'seed@family.example' })).toThrow(
      /custom domain\?\): give the IMAP user/,
    );
    expect(applyPreset('icloud', { email: 'seed@family.example', user: 'emilyparker' }).user).toBe(
      'emilyparker',
    );
  });

  it('refuses a tagged address and a port that is not one', () => {
    expect(() => applyPreset('gmail', { email: 'seed+tc_x@gmail.com' })).toThrow(InvalidInputError);
    expect(() => applyPreset('gmail', { email: 'seed@gmail.com', port: 0 })).toThrow(
      'port 0 is not a TCP port',
    );
    expect(() => applyPreset('gmail', { email: 'seed@gmail.com', port: 99_999 })).toThrow(InvalidInputError);
  });
});

describe('msDeliveryOf (X-Microsoft-Antispam-Mailbox-Delivery)', () => {
  it('reads dest:I as the inbox and dest:J as junk', () => {
    expect(msDeliveryOf('ucf:0;jmr:0;auth:0;dest:I;ENG:(910001)(944506478)(944626604);')).toBe('inbox');
    // Verbatim from a Microsoft Q&A thread: delivered to junk by the spam filter.
    expect(
      msDeliveryOf('ucf:0;jmr:1;auth:0;dest:J;ENG:(20160513016)(750129)(520011016)(944506458)(944626604);'),
    ).toBe('junk');
    expect(
      msDeliveryOf('ucf:1;jmr:0;auth:0;dest:J;OFR:CustomRules;ENG:(20160514016)(750129)(520011016);'),
    ).toBe('junk');
  });

  it('gives no verdict for a custom folder (dest:C), an unknown value, or no dest at all', () => {
    expect(msDeliveryOf('ucf:0;jmr:0;auth:0;dest:C;OFR:CustomRules;ENG:(910001);')).toBeUndefined();
    expect(msDeliveryOf('ucf:0;jmr:0;auth:0;dest:X;')).toBeUndefined();
    expect(msDeliveryOf('ucf:0;jmr:0;auth:0;dest:JI;')).toBeUndefined();
    expect(msDeliveryOf('ucf:0;jmr:0;auth:0;')).toBeUndefined();
    expect(msDeliveryOf('')).toBeUndefined();
    expect(msDeliveryOf(undefined)).toBeUndefined();
  });

  it('gives no verdict when one header names two different destinations', () => {
    expect(msDeliveryOf('dest:I;dest:J;')).toBeUndefined();
    expect(msDeliveryOf('dest:J;ucf:0;dest:J;')).toBe('junk');
  });

  it('tolerates spacing and letter case, and only reads a field named dest', () => {
    expect(msDeliveryOf(' ucf:0 ; Dest : j ; ')).toBe('junk');
    expect(msDeliveryOf('ucf:0;OFR:dest:J;xdest:J;')).toBeUndefined();
  });

  it('reads the header as the scanner’s header parser unfolds it', () => {
    const raw =
      'X-Microsoft-Antispam-Mailbox-Delivery:\r\n\tucf:0;jmr:0;auth:0;dest:J;ENG:(910001)(944506478)\r\n (944626604)(920097)(930097);\r\nTo: seed@outlook.com\r\n\r\n';
    const value = parseHeaderBlock(raw)?.find(
      (header) => header.name === 'x-microsoft-antispam-mailbox-delivery',
    );
    expect(msDeliveryOf(value?.value)).toBe('junk');
  });

  it('never throws and only ever answers inbox, junk or nothing', () => {
    const field = fc.oneof(
      fc.constantFrom('dest:I', 'dest:J', 'dest:C', 'ucf:0', 'jmr:1', 'auth:0', 'ENG:(910001)', 'dest:'),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(field, { maxLength: 8 }), (fields) => {
        const header = fields.join(';');
        const verdict = msDeliveryOf(header);
        expect([undefined, 'inbox', 'junk']).toContain(verdict);
        if (!header.split(';').some((f) => /^\s*dest\s*:/i.test(f))) expect(verdict).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });
});
