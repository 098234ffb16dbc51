// Owns the optional body of POST /api/spam-check/start (an addition): `{"callback_url": "https://..."}`, capped,
// parsed and judged before anything is stored, each refusal a 400 whose detail names the problem, never the input.
import { isIP } from 'node:net';
import { DomainError } from '../../domain/errors';
import { type CallbackPolicy, isLoopbackAddress, isPublicAddress } from '../../domain/publicAddress';

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

const parsedJson = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** `callback_url` as a body may spell it, in JSON's escapes too: a fixed pattern, linear on any text. */
const MENTIONS_CALLBACK = /callback(?:_|\\u005f)url/i;

/** Whether a body names `callback_url` anywhere: such a body asks for a webhook, and is judged. */
export const mentionsCallback = (text: string): boolean => MENTIONS_CALLBACK.test(text);

/**
 * The start request from its raw body. The base contract sends none and ignores any body sent anyway, and so does
 * this, unless the body asks for a webhook: it is declared JSON (`declaredJson`: Content-Type application/json),
 * or it names `callback_url` anywhere (`mentioned`, for a body too long to be passed whole), whatever its
 * Content-Type. Such a body is judged strictly (400 when it is not a valid request); any other is ignored as before.
 */
export const parseStartRequest = (
  body: Buffer | undefined,
  policy: CallbackPolicy,
  declaredJson = false,
  mentioned = false,
): StartRequest => {
  if (!body || body.length === 0) return {};
  const mentions = mentioned || mentionsCallback(body.toString('latin1'));
  const judged = declaredJson || mentions;
  if (body.length > MAX_START_BODY_BYTES)
    return judged ? refuse(`longer than ${MAX_START_BODY_BYTES} bytes`) : {};
  const parsed = parsedJson(body.toString('utf8'));
  if (!parsed.ok) return judged ? refuse('not valid JSON') : {};
  const value = parsed.value;
  if (!isObject(value)) return judged ? refuse('expected a JSON object') : {};
  // A JSON object that does not ask for a webhook is ignored, as the base contract ignores any body.
  // One that names it elsewhere (nested, in a value) meant to ask for one: told so, not started without it.
  if (!Object.hasOwn(value, 'callback_url'))
    return mentions ? refuse('callback_url must be a field of the top-level object') : {};
  const unknown = Object.keys(value).filter((name) => name !== 'callback_url');
  // The names are the caller's own text: counted, not repeated.
  if (unknown.length > 0)
    return refuse(
      `${unknown.length} unknown field${unknown.length === 1 ? '' : 's'}; only callback_url is accepted`,
    );
  return { callbackUrl: validateCallbackUrl(value.callback_url, policy) };
};
