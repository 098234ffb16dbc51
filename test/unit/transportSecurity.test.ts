// TLS with certificate verification for every IMAP host but loopback test servers.
import { describe, expect, it } from 'vitest';
import { transportSecurity } from '../../shared/adapters/imap/connection';

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

  it('lets loopback test servers run in clear text', () => {
    expect(transportSecurity({ host: '127.0.0.1', port: 1143, secure: false })).toEqual({
      doSTARTTLS: false,
    });
    expect(transportSecurity({ host: 'localhost', port: 1143, secure: false })).toEqual({
      doSTARTTLS: false,
    });
  });
});
