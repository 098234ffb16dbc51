// Owns the DKIM key audit (RFC 6376 section 3.6.1): the key record at <selector>._domainkey.<domain> (other TXT
// records there are not keys), its type (k=, rsa by default; ed25519 per RFC 8463) and its size read from the p= key
// with node:crypto. A revoked key (empty p=), an RSA key under 2048 bits (RFC 8301 sets 1024 as the floor; M3AAWG
// asks for 2048), a tag given twice (section 3.2: the record is invalid), testing mode (t=y: receivers treat the
// mail as unsigned), h= without sha256 (RFC 8301) and s= without email or * fail.
import { createPublicKey } from 'node:crypto';
import type { CheckDns } from './checkDns';
import { type DnsJudgement, MAX_RECORD_CHARS, recordsOf, tagList } from './dnsJudgement';

const SOURCE = 'RFC 6376 (DKIM) section 3.6.1, RFC 8301, RFC 8463';
const RECOMMENDED_RSA_BITS = 2048;
const MINIMUM_RSA_BITS = 1024;

export interface DkimKeyAudit extends DnsJudgement {
  keyType: 'rsa' | 'ed25519' | undefined;
  bits: number | undefined;
}

/** The RSA modulus size of a p= value: SubjectPublicKeyInfo as RFC 6376 says, or a bare RSAPublicKey as some publish. */
const rsaBits = (der: Buffer): number | undefined => {
  for (const type of ['spki', 'pkcs1'] as const) {
    try {
      const key = createPublicKey({ key: der, format: 'der', type });
      if (key.asymmetricKeyType === 'rsa') return key.asymmetricKeyDetails?.modulusLength;
    } catch {
      // not this encoding
    }
  }
  return undefined;
};

/** The first tag named twice, if any (one pass: the record is the sender's to write). */
const repeatedTag = (text: string): string | undefined => {
  const seen = new Set<string>();
  for (const part of text.split(';')) {
    const name = part
      .slice(0, Math.max(0, part.indexOf('=')))
      .trim()
      .toLowerCase();
    if (name === '') continue;
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
};

/** A colon-separated list tag (t=, h=, s=), lower-cased. */
const listOf = (value: string | undefined) =>
  value === undefined ? undefined : value.split(':').map((item) => item.trim().toLowerCase());

/** What makes a key unusable for mail whatever its size: testing mode, a hash or service that excludes it. */
const usageProblem = (tags: Map<string, string>): string | undefined => {
  if (listOf(tags.get('t'))?.includes('y')) return 't=y: testing mode, receivers treat the mail as unsigned';
  const hashes = listOf(tags.get('h'));
  if (hashes !== undefined && !hashes.includes('sha256'))
    return `h=${tags.get('h')?.slice(0, 20)}: the key refuses sha256, and sha1 must not be used (RFC 8301)`;
  const services = listOf(tags.get('s'));
  if (services !== undefined && !services.includes('*') && !services.includes('email'))
    return `s=${tags.get('s')?.slice(0, 20)}: the key is not for email`;
  return undefined;
};

/** Reads one key record's type and size. */
export const readDkimKey = (text: string): Omit<DkimKeyAudit, 'source'> => {
  const record = text.slice(0, MAX_RECORD_CHARS);
  const tags = tagList(record);
  const version = tags.get('v');
  const none = { keyType: undefined, bits: undefined };
  if (version !== undefined && version !== 'DKIM1')
    return { ...none, judgement: 'fail', reason: `v=${version} is not DKIM1` };
  const twice = repeatedTag(record);
  if (twice !== undefined)
    return {
      ...none,
      judgement: 'fail',
      reason: `${twice.slice(0, 20)}= appears twice: the key record is invalid`,
    };
  const usage = usageProblem(tags);
  if (usage !== undefined) return { ...none, judgement: 'fail', reason: usage };
  const p = (tags.get('p') ?? '').replace(/\s+/g, '');
  if (!tags.has('p')) return { ...none, judgement: 'fail', reason: 'the key record has no p= tag' };
  if (p === '') return { ...none, judgement: 'fail', reason: 'the key is revoked (empty p=)' };
  const der = Buffer.from(p, 'base64');
  const k = (tags.get('k') ?? 'rsa').toLowerCase();
  if (k === 'ed25519') {
    return der.length === 32
      ? { keyType: 'ed25519', bits: 256, judgement: 'pass', reason: 'Ed25519 key' }
      : { keyType: 'ed25519', bits: undefined, judgement: 'fail', reason: 'the Ed25519 key is not 32 bytes' };
  }
  if (k !== 'rsa')
    return { ...none, judgement: 'fail', reason: `key type k=${k.slice(0, 20)} is not one DKIM defines` };
  const bits = rsaBits(der);
  if (bits === undefined)
    return { keyType: 'rsa', bits, judgement: 'fail', reason: 'the p= value is not an RSA public key' };
  if (bits < MINIMUM_RSA_BITS)
    return {
      keyType: 'rsa',
      bits,
      judgement: 'fail',
      reason: `${bits}-bit RSA key: verifiers must reject it`,
    };
  if (bits < RECOMMENDED_RSA_BITS)
    return {
      keyType: 'rsa',
      bits,
      judgement: 'fail',
      reason: `${bits}-bit RSA key: rotate to ${RECOMMENDED_RSA_BITS} bits`,
    };
  return { keyType: 'rsa', bits, judgement: 'pass', reason: `${bits}-bit RSA key` };
};

/** The DKIM key audit of one signature's d= and s=. */
export const auditDkimKey = async (
  dns: CheckDns,
  domain: string,
  selector: string,
): Promise<DkimKeyAudit> => {
  const name = `${selector}._domainkey.${domain}`;
  const answer = await dns.lookup(name, 'TXT');
  const none = { keyType: undefined, bits: undefined, source: SOURCE };
  if (answer.kind === 'unknown') return { ...none, judgement: 'unknown', reason: answer.reason };
  // Other TXT records may share the name (a verification token): a key record is one that starts v=DKIM1 or has p=.
  const records = (recordsOf(answer) ?? []).filter(
    (text) => /^\s*v\s*=\s*DKIM1\s*(;|$)/.test(text) || tagList(text.slice(0, MAX_RECORD_CHARS)).has('p'),
  );
  if (records.length === 0) return { ...none, judgement: 'fail', reason: `no DKIM key at ${name}` };
  if (records.length > 1)
    return { ...none, judgement: 'fail', reason: `${records.length} DKIM key records at ${name}` };
  const read = readDkimKey(records[0] ?? '');
  return { ...read, reason: `${name}: ${read.reason}`, source: SOURCE };
};
