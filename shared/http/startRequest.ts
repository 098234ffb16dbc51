// Owns reading POST /api/spam-check/start's event: its optional body (an addition) and the API's base URL as the
// caller reached it, for the webhook's report_url.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { isLoopbackHost } from '../domain/loopback';
import { AWS_CALLBACK_POLICY, type CallbackPolicy } from '../domain/publicAddress';
import type { StartOptions } from '../usecases/startCheck';
import { MAX_START_BODY_BYTES, mentionsCallback, parseStartRequest } from '../webhooks';

const HOST = /^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?$/;

/** The body, or for one over the cap a stand-in of the cap's length plus one, and whether it names callback_url. */
const bodyOf = (event: APIGatewayProxyEventV2): { body: Buffer | undefined; mentioned: boolean } => {
  if (event.body === undefined || event.body === '') return { body: undefined, mentioned: false };
  // Capped before decoding: base64 is a third longer than what it carries. Searched, not parsed: one linear pass.
  if (event.body.length > Math.ceil((MAX_START_BODY_BYTES * 4) / 3) + 4) {
    const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('latin1') : event.body;
    return { body: Buffer.alloc(MAX_START_BODY_BYTES + 1), mentioned: mentionsCallback(text) };
  }
  return { body: Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8'), mentioned: false };
};

/** API Gateway's own domain on AWS (https); npm start's Host (plain http on this machine). */
const apiBaseUrlOf = (event: APIGatewayProxyEventV2): string | undefined => {
  const host = event.requestContext?.domainName;
  if (!host || !HOST.test(host)) return undefined;
  const hostname = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
  return `${isLoopbackHost(hostname) ? 'http' : 'https'}://${host}`;
};

export const startOptionsOf = (
  event: APIGatewayProxyEventV2,
  policy: CallbackPolicy = AWS_CALLBACK_POLICY,
): StartOptions => {
  const contentType = event.headers?.['content-type'] ?? '';
  const { body, mentioned } = bodyOf(event);
  const declaredJson = /^application\/json\b/i.test(contentType);
  const { callbackUrl } = parseStartRequest(body, policy, declaredJson, mentioned);
  return callbackUrl === undefined ? {} : { callbackUrl, apiBaseUrl: apiBaseUrlOf(event) };
};
