// A stored account entry (config/local.json or the secret) of an OAuth2 mailbox, for tests that rotate its token.

export const oauthAccountEntry = (email: string, refreshToken: string) => ({
  email,
  provider: 'outlook',
  imap: { host: 'outlook.office365.com', port: 993, secure: true },
  auth: {
    user: email,
    oauth2: { clientId: 'client', refreshToken, tokenEndpoint: 'https://login.example.test/token' },
  },
  folders: {},
});

export type OAuthAccountEntry = ReturnType<typeof oauthAccountEntry>;
