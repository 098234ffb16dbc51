// Owns the optional body of POST /api/spam-check/start (an addition): `{"callback_url": "https://..."}`, capped,
// parsed and judged before anything is stored, each refusal a 400 whose detail names the problem, never the input.
import { isIP } from 'node:net';
import { DomainError } from './errors';
import { type CallbackPolicy, isLoopbackAddress, isPublicAddress } from './publicAddress';

/** A start body is one small object; anything longer is refused before it is parsed. */
export const MAX_START_BODY_BYTES = 4096;
const MAX_CALLBACK_URL_LENGTH = 2048;

/** A start body that is not what the contract's addition allows: 400 with what is wrong. */
class InvalidStartBodyError extends DomainError {
  readonly status = 400;
  constructor(readonly detail: string) {
    super(detail);
  }
}

export interface StartRequest {
  callbackUrl?: string;
}

const refuse = (problem: string): never => {
  throw new InvalidStartBodyError(`Invalid request body: ${problem}`);
};

const isLoopbackName = (host: string) => host === 'localhost' || isLoopbackAddress(host);

/** The callback URL as it will be called (no fragment), or InvalidStartBodyError saying why it may not be. */
const validateCallbackUrl = (value: unknown, policy: CallbackPolicy): string => {
  if (typeof value !== 'string') return refuse('callback_url must be a string');
  if (value.length > MAX_CALLBACK_URL_LENGTH)
    return refuse(`callback_url is longer than ${MAX_CALLBACK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refuse('callback_url is not an absolute URL');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const loopback = isLoopbackName(host);
  if (url.protocol === 'http:') {
    if (!(policy.allowLoopbackHttp && loopback)) return refuse('callback_url must use https');
  } else if (url.protocol !== 'https:') return refuse('callback_url must use https');
  if (url.username !== '' || url.password !== '') return refuse('callback_url must not carry credentials');
  if (host === '') return refuse('callback_url has no host');
  if (loopback && !policy.allowLoopbackHttp) return refuse('callback_url must not point at this machine');
  // A literal address is judged now; a name is judged on every address it resolves to, when the webhook is sent.
  if (isIP(host) !== 0 && !loopback && !isPublicAddress(host))
    return refuse('callback_url must point at a public address');
  url.hash = '';
  return url.toString();
};

/** The start request from its raw body: empty (no body at all, the spec's request) or one JSON object. */
export const parseStartRequest = (body: Buffer | undefined, policy: CallbackPolicy): StartRequest => {
  if (!body || body.length === 0) return {};
  if (body.length > MAX_START_BODY_BYTES) return refuse(`longer than ${MAX_START_BODY_BYTES} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return refuse('not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return refuse('expected a JSON object');
  const unknown = Object.keys(parsed).filter((name) => name !== 'callback_url');
  // The names are the caller's own text: counted, not repeated.
  if (unknown.length > 0)
    return refuse(
      `${unknown.length} unknown field${unknown.length === 1 ? '' : 's'}; only callback_url is accepted`,
    );
  const { callback_url: callbackUrl } = parsed as { callback_url?: unknown };
  if (callbackUrl === undefined) return {};
  return { callbackUrl: validateCallbackUrl(callbackUrl, policy) };
};
