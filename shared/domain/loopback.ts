// Owns what counts as this machine (127.0.0.0/8, ::1, localhost): the only hosts a secret may be sent to without TLS.
import { isIP } from 'node:net';

/** A host name as URL.hostname gives it (IPv6 in brackets) or bare. */
export const isLoopbackHost = (host: string): boolean => {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return isIP(bare) === 6 && (bare === '::1' || bare === '0:0:0:0:0:0:0:1');
};

/**
 * https anywhere, plain http only to this machine: where a URL may carry a key, a token or a client secret. A string
 * that is no URL may carry nothing.
 */
export const mayCarrySecrets = (url: URL | string): boolean => {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return false;
  }
  return parsed.protocol === 'https:' || (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname));
};
