// Any start body that names callback_url is judged, whatever its Content-Type: over the 4,096-byte cap, not JSON, not
// an object, or naming it anywhere but as the top-level field, it is a 400, never a check started without its
// webhook. A body that does not name it is ignored as the base contract ignores any body.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { startOptionsOf } from '../../shared/http/startRequest';
import { MAX_START_BODY_BYTES } from '../../shared/webhooks/domain/callbackUrl';

const eventOf = (body: string, headers: Record<string, string> = {}, base64 = false) =>
  ({
    body: base64 ? Buffer.from(body).toString('base64') : body,
    isBase64Encoded: base64,
    headers,
    requestContext: { domainName: 'api.example.com' },
  }) as unknown as APIGatewayProxyEventV2;

const padded = (text: string) => `${text}${' '.repeat(MAX_START_BODY_BYTES + 100 - text.length)}`;
const status = (event: APIGatewayProxyEventV2) => {
  try {
    return startOptionsOf(event);
  } catch (error) {
    return { status: (error as { status?: number }).status, message: (error as Error).message };
  }
};

describe('a start body that names callback_url', () => {
  const long = padded('{"callback_url": "https://hooks.example.com/placement"}');
  it.each([
    ['over the cap, no Content-Type', eventOf(long)],
    ['over the cap, text/plain', eventOf(long, { 'content-type': 'text/plain' })],
    ['over the cap, base64-encoded', eventOf(long, {}, true)],
    ['a form, no Content-Type', eventOf('callback_url=https%3A%2F%2Fhooks.example.com%2Fp')],
    ['a JSON array', eventOf('[{"callback_url": "https://hooks.example.com/p"}]')],
    ['nested', eventOf('{"webhook": {"callback_url": "https://hooks.example.com/p"}}')],
    ['with an unknown field', eventOf('{"callback_url": "https://hooks.example.com/p", "x": 1}')],
    ['pointing at a private address', eventOf('{"callback_url": "https://10.0.0.1/p"}')],
  ])('%s: 400', (_, event) => {
    expect(status(event)).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^Invalid request body/),
    });
  });

  it('is read when valid, JSON escapes and all, whatever its Content-Type', () => {
    expect(startOptionsOf(eventOf('{"callback\\u005furl": "https://hooks.example.com/p"}'))).toEqual({
      callbackUrl: 'https://hooks.example.com/p',
      apiBaseUrl: 'https://api.example.com',
    });
    expect(
      startOptionsOf(
        eventOf('{"callback_url": "https://hooks.example.com/p"}', { 'content-type': 'text/plain' }),
      ),
    ).toMatchObject({ callbackUrl: 'https://hooks.example.com/p' });
  });
});

describe('a start body that does not name callback_url', () => {
  it.each([
    ['long text', eventOf(padded('hello'))],
    ['short text', eventOf('hello')],
    ['a JSON object', eventOf('{"note": 1}')],
  ])('%s without a JSON Content-Type is ignored', (_, event) => {
    expect(startOptionsOf(event)).toEqual({});
  });

  it('is judged when declared JSON, as before', () => {
    expect(status(eventOf(padded('{}'), { 'content-type': 'application/json' }))).toMatchObject({
      status: 400,
    });
  });
});
