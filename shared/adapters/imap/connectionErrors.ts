// Owns how a failed IMAP connect or login reads: what failed, where, and the server's own words.

/** A failed connect or login, described for a person: what failed, where, and the server's own words. */
export class ImapConnectError extends Error {
  readonly code: string | undefined;
  readonly authenticationFailed: boolean;

  constructor(cause: unknown, host: string, port: number) {
    const details = (cause ?? {}) as {
      code?: string;
      authenticationFailed?: boolean;
      responseText?: string;
      message?: string;
    };
    const server = details.responseText ? ` (server said: ${details.responseText})` : '';
    const what = details.authenticationFailed
      ? `authentication failed at ${host}:${port}, check the user and the (app) password${server}`
      : `could not connect to ${host}:${port}: ${details.code ?? details.message ?? String(cause)}${server}`;
    super(what);
    this.name = 'ImapConnectError';
    this.code = details.code;
    this.authenticationFailed = details.authenticationFailed === true;
  }
}
