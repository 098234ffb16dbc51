// Owns how a failed IMAP connect or login reads: what failed, where, and the server's own words.

/** Node's codes for a server certificate it does not trust: the chain's verification, and the name check. */
const CERTIFICATE_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REJECTED',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

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
    const untrusted = details.code !== undefined && CERTIFICATE_CODES.has(details.code);
    const what = details.authenticationFailed
      ? `authentication failed at ${host}:${port}, check the user and the (app) password${server}`
      : untrusted
        ? `the TLS certificate of ${host}:${port} is not trusted (${details.code}: ${details.message ?? 'refused'}); a private CA is trusted through IMAP_CA_FILE`
        : `could not connect to ${host}:${port}: ${details.code ?? details.message ?? String(cause)}${server}`;
    super(what);
    this.name = 'ImapConnectError';
    this.code = details.code;
    this.authenticationFailed = details.authenticationFailed === true;
  }
}
