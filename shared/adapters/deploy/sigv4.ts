// Owns signing one AWS API request (Signature Version 4) with node:crypto, for the one call no installed SDK client
// makes: CodeDeploy's PutLifecycleEventHookExecutionStatus from the deploy probe.
import { createHash, createHmac } from 'node:crypto';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

export interface UnsignedRequest {
  method: 'GET' | 'POST';
  host: string;
  path: string;
  /** The query string, already in canonical form (sorted, encoded); empty for none. */
  query: string;
  /** Header names in lower case; `host` and `x-amz-date` are added. */
  headers: Record<string, string>;
  body: string;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const hmac = (key: Buffer | string, text: string): Buffer =>
  createHmac('sha256', key).update(text, 'utf8').digest();

/** `20150830T123600Z` for a moment. */
const amzDate = (at: Date): string =>
  at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/** The request's headers with `authorization`, `x-amz-date` (and the session token) added, as AWS expects them. */
export const signRequest = (
  request: UnsignedRequest,
  scope: { region: string; service: string },
  credentials: AwsCredentials,
  at: Date,
): Record<string, string> => {
  const date = amzDate(at);
  const day = date.slice(0, 8);
  const headers: Record<string, string> = { ...request.headers, host: request.host, 'x-amz-date': date };
  if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonical = [
    request.method,
    request.path,
    request.query,
    ...names.map((name) => `${name}:${(headers[name] ?? '').trim()}`),
    '',
    signedHeaders,
    sha256(request.body),
  ].join('\n');
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', date, credentialScope, sha256(canonical)].join('\n');
  let key = hmac(`AWS4${credentials.secretAccessKey}`, day);
  for (const part of [scope.region, scope.service, 'aws4_request']) key = hmac(key, part);
  const signature = createHmac('sha256', key).update(toSign, 'utf8').digest('hex');
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
};
