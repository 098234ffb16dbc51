// Owns one POST to an OAuth2 token endpoint (RFC 6749 §5): sending the form, bounding the wait, reading the answer,
// and describing a failure without ever repeating a token or a client secret.
import * as z from 'zod';
import { mayCarrySecrets } from '../../domain/loopback';
import { problemsOf } from '../../domain/problems';

export const TOKEN_REQUEST_TIMEOUT_MS = 10_000;
/** A provider's error_description is shown to people; longer ones are cut, they are never about our input. */
const MAX_DESCRIPTION = 300;

const successSchema = z.object({
  access_token: z.string().min(1),
  // Some providers send it as a string; RFC 6749 only recommends it.
  expires_in: z.coerce.number().positive().optional(),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().optional(),
  token_type: z.string().optional(),
});

export type TokenResponse = z.infer<typeof successSchema>;

const errorSchema = z.object({
  error: z.string().optional(),
  error_description: z.string().optional(),
});

/** Where a request went, for messages: origin and path only, never userinfo or a query. */
export const endpointName = (endpoint: string): string => {
  try {
    const url = new URL(endpoint);
    return `${url.origin}${url.pathname}`;
  } catch {
    return 'an invalid token endpoint URL';
  }
};

/**
 * The forms a secret can be echoed in: as is, URL-encoded (component and form, either case of hex), and in base64 and
 * base64url at each of the three alignments a surrounding value can give it (the characters that depend on the
 * secret alone: a few bits at each end may stay, never a usable part).
 */
const encodingsOf = (secret: string): string[] => {
  const bytes = Buffer.from(secret, 'utf8');
  const urlForms = [encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)];
  const forms = new Set([
    secret,
    ...urlForms,
    ...urlForms.map((form) => form.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())),
  ]);
  for (let shift = 0; shift < 3; shift++) {
    const shifted = Buffer.concat([Buffer.alloc(shift), bytes]);
    const [from, to] = [shift === 0 ? 0 : 4, Math.floor((shift + bytes.length) / 3) * 4];
    for (const encoding of ['base64', 'base64url'] as const) {
      const stable = shifted.toString(encoding).slice(from, to);
      if (stable.length >= 4) forms.add(stable);
    }
  }
  return [...forms].sort((a, b) => b.length - a.length);
};

/** Blanks every occurrence of each secret in any of its encodings, so a provider echoing one cannot log it. */
export const redact = (text: string, secrets: readonly (string | undefined)[]): string =>
  secrets.reduce<string>(
    (result, secret) =>
      secret && secret.length >= 4
        ? encodingsOf(secret).reduce((blanked, form) => blanked.split(form).join('[redacted]'), result)
        : result,
    text,
  );

/** The token endpoint refused, failed or could not be reached; `error` is the provider's own code, if any. */
export class TokenEndpointError extends Error {
  constructor(
    readonly endpoint: string,
    /** The HTTP status, or undefined when no answer came. */
    readonly status: number | undefined,
    /** RFC 6749 §5.2 `error`, e.g. invalid_grant or invalid_client. */
    readonly error: string | undefined,
    readonly description: string | undefined,
    /** Why no usable answer came: a network error, a timeout, a malformed body. */
    readonly problem?: string,
  ) {
    const said = [error, description && `(${description})`].filter(Boolean).join(' ');
    const what =
      status === undefined
        ? `could not reach ${endpointName(endpoint)}: ${problem ?? 'no answer'}`
        : `${endpointName(endpoint)} answered HTTP ${status}${said ? `: ${said}` : ''}${problem ? `, ${problem}` : ''}`;
    super(what);
  }

  override get name(): string {
    return this.constructor.name;
  }
}

const reasonOf = (error: unknown, timeoutMs: number): string => {
  if (error instanceof Error && error.name === 'TimeoutError')
    return `no answer within ${timeoutMs / 1000} s`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
};

/**
 * POSTs `params` as application/x-www-form-urlencoded to `endpoint` and returns the parsed token response; any
 * other outcome throws a TokenEndpointError whose text has every value of `secrets` blanked out.
 */
export const requestToken = async (
  endpoint: string,
  params: Record<string, string | undefined>,
  secrets: readonly (string | undefined)[],
  timeoutMs = TOKEN_REQUEST_TIMEOUT_MS,
): Promise<TokenResponse> => {
  // Checked here too, not only in the config's schema: this is the one place a client secret is sent from.
  if (!mayCarrySecrets(endpoint))
    throw new TokenEndpointError(
      endpoint,
      undefined,
      undefined,
      undefined,
      'not sent: the token endpoint must be https (plain http only to a loopback host)',
    );
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) form.set(key, value);
  const fail = (status: number | undefined, error?: string, description?: string, problem?: string) =>
    new TokenEndpointError(
      endpoint,
      status,
      error && redact(error, secrets).slice(0, 100),
      description && redact(description, secrets).slice(0, MAX_DESCRIPTION),
      problem && redact(problem, secrets),
    );

  let response: Response;
  let text: string;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form,
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    throw fail(undefined, undefined, undefined, reasonOf(error, timeoutMs));
  }

  let body: unknown;
  try {
    // Never shown: a failure is only "not a token response" below, so JSON.parse's message (quoting) goes nowhere.
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const parsed = errorSchema.safeParse(body);
    const { error, error_description } = parsed.success ? parsed.data : {};
    throw fail(response.status, error, error_description);
  }
  const parsed = successSchema.safeParse(body);
  if (!parsed.success) {
    // Name the fields that are wrong, never their values: one of them may be a token.
    const where = problemsOf(parsed.error, { messages: false, root: 'not a JSON object' }).join(', ');
    throw fail(response.status, undefined, undefined, `not a token response (${where})`);
  }
  return parsed.data;
};
