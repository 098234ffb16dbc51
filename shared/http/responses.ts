// Owns the shape of every HTTP response body and header the API sends.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

const BASE_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

export const jsonResponse = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { ...BASE_HEADERS, ...headers },
  body: JSON.stringify(body),
});

export const errorResponse = (statusCode: number, detail: string, headers: Record<string, string> = {}) =>
  jsonResponse(statusCode, { detail }, headers);
