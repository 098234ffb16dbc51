// TLS with certificate verification for every IMAP host, loopback too; clear text only to a loopback test server.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { transportSecurity, trustContext, trustedRoots } from '../../shared/adapters/imap/connection';

describe('transportSecurity', () => {
  it('verifies certificates on every real host, with TLS on connect or STARTTLS required', () => {
    expect(transportSecurity({ host: 'imap.gmail.com', port: 993, secure: true })).toEqual({
      tls: { rejectUnauthorized: true, minVersion: 'TLSv1.2' },
    });
    expect(transportSecurity({ host: 'mail.example.com', port: 143, secure: false })).toEqual({
      tls: { rejectUnauthorized: true, minVersion: 'TLSv1.2' },
      doSTARTTLS: true,
    });
    // Private addresses are not loopback: a LAN server still needs a valid certificate.
    expect(transportSecurity({ host: '10.0.0.5', port: 993, secure: true }).tls?.rejectUnauthorized).toBe(
      true,
    );
  });

  it('verifies a loopback server over TLS too, never accepting an unverified certificate', () => {
    expect(transportSecurity({ host: '127.0.0.1', port: 1993, secure: true })).toEqual({
      tls: { rejectUnauthorized: true, minVersion: 'TLSv1.2' },
    });
  });

  it("trusts an operator's CA beside Node's roots, never instead of them, in one context for every connection", () => {
    const ca = readFileSync(join(import.meta.dirname, '../fixtures/test-ca.pem'), 'latin1');
    const roots = trustedRoots(ca);
    expect(roots).toHaveLength(rootCertificates.length + 1);
    expect(roots).toEqual(expect.arrayContaining([ca, rootCertificates[0]]));
    expect(trustedRoots(undefined)).toBeUndefined();
    expect(trustContext(undefined)).toBeUndefined();
    const context = trustContext(ca);
    expect(context).toBeDefined();
    expect(transportSecurity({ host: '127.0.0.2', port: 1993, secure: true }, context)).toEqual({
      tls: { rejectUnauthorized: true, minVersion: 'TLSv1.2', secureContext: context },
    });
    expect(
      transportSecurity({ host: 'imap.gmail.com', port: 993, secure: true }, context).tls?.secureContext,
    ).toBe(context);
  });

  it('lets loopback test servers run in clear text', () => {
    expect(transportSecurity({ host: '127.0.0.1', port: 1143, secure: false })).toEqual({
      doSTARTTLS: false,
    });
    expect(transportSecurity({ host: 'localhost', port: 1143, secure: false })).toEqual({
      doSTARTTLS: false,
    });
  });
});
