// openapi.yaml against docs/contract.md and the code: the version, the two operations, the vocabularies and error texts
// taken from the domain, the bearer scheme, how additions are marked, and proof that the response validator
// every conformance test goes through (test/support/testService.ts) can fail.
import { describe, expect, it } from 'vitest';
import { CATEGORIES } from '../../shared/domain/categories';
import {
  CheckNotFoundError,
  InvalidApiKeyError,
  NoAccountsError,
  StoreUnavailableError,
} from '../../shared/domain/errors';
import { CompareQueryError } from '../../shared/http/compareRequest';
import { HistoryQueryError } from '../../shared/http/historyRequest';
import {
  MethodNotAllowedError,
  PayloadTooLargeError,
  RouteNotFoundError,
} from '../../shared/http/requestErrors';
import { ROUTES } from '../../shared/http/routes';
import {
  openApiDocument as doc,
  methodsOf,
  type OperationObject,
  type ResponseObject,
  type Responses,
  type SchemaObject,
  validateResponse,
} from '../support/openapi';

const START = '/api/spam-check/start';
const GET = '/api/spam-check/{check_id}';
const REPORT = '/api/spam-check/{check_id}/report';
const COMPARE = '/api/spam-check/compare';
const HISTORY = '/api/spam-check/history';
const CHECK_ID = 'h7vlvp24y7xpdm6puop3';
const getPath = `/api/spam-check/${CHECK_ID}`;
const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

const operation = (template: string, method: 'get' | 'post'): OperationObject => {
  const found = doc.paths[template]?.[method];
  if (!found) throw new Error(`no ${method} ${template} in openapi.yaml`);
  return found;
};

const responseOf = (responses: Responses, status: number): ResponseObject => {
  const found = responses[String(status)];
  if (!found) throw new Error(`no ${status} response`);
  return found;
};

const schemaOf = (response: ResponseObject): SchemaObject => {
  const schema = response.content?.['application/json']?.schema;
  if (!schema) throw new Error(`no JSON schema in "${response.description}"`);
  return schema;
};

const componentSchema = (name: string): SchemaObject => {
  const schema = doc.components.schemas[name];
  if (!schema) throw new Error(`no schema ${name}`);
  return schema;
};

const propertyOf = (schema: SchemaObject, name: string): SchemaObject => {
  const property = (schema.properties as Record<string, SchemaObject> | undefined)?.[name];
  if (!property) throw new Error(`no property ${name}`);
  return property;
};

/** The exact `detail` text a response's schema requires. */
const detailOf = (response: ResponseObject): unknown => propertyOf(schemaOf(response), 'detail').const;

const exampleOf = (response: ResponseObject, name: string): unknown => {
  const example = response.content?.['application/json']?.examples?.[name];
  if (!example) throw new Error(`no example ${name}`);
  return structuredClone(example.value);
};

const additions = doc['x-additional-responses'];
const startOp = operation(START, 'post');
const getOp = operation(GET, 'get');
const completeCheck = () =>
  exampleOf(responseOf(getOp.responses, 200), 'complete') as Record<string, unknown>;
const started = () => exampleOf(responseOf(startOp.responses, 200), 'started') as Record<string, unknown>;

describe('openapi.yaml: the document', () => {
  it('is OpenAPI 3.1 and carries version 1.0.0, as docs/contract.md Versioning says', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
  });

  it('has exactly the two paths of docs/contract.md and the report, compare and history additions, no version segment', () => {
    expect(Object.keys(doc.paths).sort()).toEqual([COMPARE, GET, HISTORY, REPORT, START].sort());
    expect(operation(HISTORY, 'get')['x-addition']).toBe(true);
    expect(JSON.stringify(responseOf(operation(HISTORY, 'get').responses, 400))).toContain(
      new HistoryQueryError().detail,
    );
    expect(operation(REPORT, 'get')['x-addition']).toBe(true);
    expect(operation(COMPARE, 'get')['x-addition']).toBe(true);
    expect(detailOf(responseOf(operation(COMPARE, 'get').responses, 400))).toBe(
      new CompareQueryError().detail,
    );
    for (const path of Object.keys(doc.paths)) expect(path).not.toMatch(/\/v\d/);
  });

  it('defines on every path exactly the methods ROUTES serves', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      methodsOf(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(ROUTES.map((route) => `${route.method} ${route.path}`).sort());
  });

  it('takes no request body, and check_id is a required string path parameter', () => {
    // An addition: the optional body that asks for a webhook (docs/webhooks.md); without it, the spec's request.
    expect(startOp.requestBody).toMatchObject({ 'x-addition': true, required: false });
    expect(getOp.requestBody).toBeUndefined();
    expect(startOp.parameters ?? []).toEqual([]);
    expect(getOp.parameters ?? []).toEqual([
      expect.objectContaining({ name: 'check_id', in: 'path', required: true, schema: { type: 'string' } }),
    ]);
  });

  it('serves from {base_url}', () => {
    expect(doc.servers.map((server) => server.url)).toEqual(['{base_url}']);
    expect(doc.servers[0]?.variables?.base_url?.default).toMatch(/^https?:\/\/[^/]+$/);
  });

  it('lists on each operation exactly the statuses of docs/contract.md and the 429 and 503 additions', () => {
    // And the 400 of a bad start body (an addition).
    expect(Object.keys(startOp.responses).sort()).toEqual(['200', '400', '401', '404', '429', '503']);
    expect(responseOf(startOp.responses, 400)['x-addition']).toBe(true);
    expect(Object.keys(getOp.responses).sort()).toEqual(['200', '401', '404', '429', '503']);
    for (const op of [startOp, getOp]) {
      for (const status of [429, 503]) {
        const addition = responseOf(op.responses, status);
        expect(addition['x-addition']).toBe(true);
        expect(addition.headers?.['Retry-After']).toMatchObject({ required: true });
      }
    }
  });
});

describe('openapi.yaml: vocabularies and texts come from the code', () => {
  it('the category enum is CATEGORIES, in the order of docs/contract.md', () => {
    expect(propertyOf(componentSchema('AccountResult'), 'category').enum).toEqual([...CATEGORIES]);
  });

  it('the status enum is pending, complete, timeout', () => {
    expect(propertyOf(componentSchema('Check'), 'status').enum).toEqual(['pending', 'complete', 'timeout']);
  });

  it('the error texts of the operations are the domain errors’ details', () => {
    expect(detailOf(responseOf(startOp.responses, 401))).toBe(new InvalidApiKeyError().detail);
    expect(detailOf(responseOf(getOp.responses, 401))).toBe(new InvalidApiKeyError().detail);
    expect(detailOf(responseOf(startOp.responses, 404))).toBe(new NoAccountsError().detail);
    expect(detailOf(responseOf(getOp.responses, 404))).toBe(new CheckNotFoundError().detail);
    for (const op of [startOp, getOp]) {
      expect(detailOf(responseOf(op.responses, 503))).toBe(new StoreUnavailableError('').detail);
    }
  });

  it('the error texts of the additions are the domain errors’ details', () => {
    expect(detailOf(responseOf(additions.unmatchedPath, 404))).toBe(new RouteNotFoundError().detail);
    expect(detailOf(responseOf(additions.unmatchedMethod, 405))).toBe(new MethodNotAllowedError([]).detail);
    expect(detailOf(responseOf(additions.anyRequest, 413))).toBe(new PayloadTooLargeError().detail);
    expect(detailOf(responseOf(additions.anyRequest, 500))).toBe('Internal server error');
  });

  it('the response objects allow no field beyond the documented ones', () => {
    for (const name of ['StartResponse', 'Check', 'AccountResult', 'Error']) {
      expect({ name, additionalProperties: componentSchema(name).additionalProperties }).toEqual({
        name,
        additionalProperties: false,
      });
    }
    expect(componentSchema('Check').required).toEqual(['check_id', 'status', 'received', 'total', 'results']);
  });
});

describe('openapi.yaml: authentication', () => {
  it('defines HTTP bearer and applies it to both operations', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(startOp.security).toEqual([{ bearerAuth: [] }]);
    expect(getOp.security).toEqual([{ bearerAuth: [] }]);
  });
});

describe('openapi.yaml: additions to the base contract (docs/contract.md) are marked', () => {
  it('every response of x-additional-responses, the 200 of start and the extra headers carry x-addition', () => {
    for (const group of [additions.unmatchedPath, additions.unmatchedMethod, additions.anyRequest]) {
      for (const response of Object.values(group)) expect(response['x-addition']).toBe(true);
    }
    expect(responseOf(startOp.responses, 200)['x-addition']).toBe(true);
    for (const name of ['CacheControl', 'WWWAuthenticate', 'RetryAfter']) {
      expect(doc.components.headers?.[name]?.['x-addition']).toBe(true);
    }
  });

  it('every 401 documents WWW-Authenticate: Bearer, every 405 an Allow header', () => {
    for (const op of [startOp, getOp]) {
      expect(responseOf(op.responses, 401).headers?.['WWW-Authenticate']).toMatchObject({
        required: true,
        schema: { const: 'Bearer' },
      });
    }
    expect(responseOf(additions.unmatchedMethod, 405).headers?.Allow).toMatchObject({ required: true });
  });

  it('info.description names every addition', () => {
    for (const text of [
      'x-addition',
      'WWW-Authenticate',
      'Cache-Control',
      '404',
      '405',
      'Allow',
      '413',
      '429',
      'Retry-After',
      'START_RATE_LIMIT_PER_MINUTE',
      'MAX_CHECKS_IN_FLIGHT_PER_KEY',
      'MAX_CHECKS_IN_FLIGHT_PER_SCOPE',
      'READ_RATE_LIMIT_PER_SECOND',
      'READ_BURST_PER_KEY',
      '500',
      '503',
    ]) {
      expect(doc.info.description).toContain(text);
    }
  });
});

describe('validateResponse', () => {
  it('accepts every example of the document for its operation and status', () => {
    const cases: [string, string, Responses][] = [
      ['POST', START, startOp.responses],
      ['GET', getPath, getOp.responses],
      ['GET', `${getPath}/report`, operation(REPORT, 'get').responses],
      ['GET', '/api/spam-check/compare', operation(COMPARE, 'get').responses],
      ['GET', HISTORY, operation(HISTORY, 'get').responses],
      ['GET', '/nowhere', additions.unmatchedPath],
      ['DELETE', START, additions.unmatchedMethod],
      ['POST', START, additions.anyRequest],
    ];
    let seen = 0;
    for (const [method, path, responses] of cases) {
      for (const [status, response] of Object.entries(responses)) {
        for (const example of Object.values(response.content?.['application/json']?.examples ?? {})) {
          expect(() => validateResponse(method, path, Number(status), example.value)).not.toThrow();
          seen++;
        }
      }
    }
    expect(seen).toBeGreaterThanOrEqual(11);
  });

  it('accepts real-looking responses with their headers', () => {
    expect(() => validateResponse('POST', START, 200, started(), JSON_HEADERS)).not.toThrow();
    expect(() =>
      validateResponse(
        'GET',
        '/api/spam-check/nope',
        401,
        { detail: 'Invalid or missing API key' },
        { ...JSON_HEADERS, 'www-authenticate': 'Bearer' },
      ),
    ).not.toThrow();
    expect(() =>
      validateResponse(
        'PUT',
        START,
        405,
        { detail: 'Method not allowed' },
        { ...JSON_HEADERS, allow: 'POST, GET' },
      ),
    ).not.toThrow();
  });

  it('routes GET /api/spam-check/start to the get operation, as the server does', () => {
    expect(() =>
      validateResponse('GET', START, 404, { detail: 'Check not found or expired' }, JSON_HEADERS),
    ).not.toThrow();
    expect(() => validateResponse('GET', START, 405, { detail: 'Method not allowed' })).toThrow(/405/);
  });

  it('fails a check missing total', () => {
    const body = completeCheck();
    delete body.total;
    expect(() => validateResponse('GET', getPath, 200, body)).toThrow(/must have required property 'total'/);
  });

  it('fails a wrong category', () => {
    const body = completeCheck();
    (body.results as { category: string }[])[0] = { email: 'inbox@mail.test', category: 'inbox' } as never;
    expect(() => validateResponse('GET', getPath, 200, body)).toThrow(
      /must be equal to one of the allowed values/,
    );
  });

  it('fails a wrong status, a negative or fractional count, and an email that is not one', () => {
    for (const change of [
      { status: 'done' },
      { received: -1 },
      { total: 1.5 },
      { received: '3' },
      { results: [{ email: 'not an address', category: 'primary' }] },
      { results: [{ email: 'inbox@mail.test' }] },
      { check_id: 42 },
    ]) {
      expect(() => validateResponse('GET', getPath, 200, { ...completeCheck(), ...change })).toThrow();
    }
  });

  it('fails an extra field on every response object', () => {
    expect(() => validateResponse('GET', getPath, 200, { ...completeCheck(), created_at: 0 })).toThrow(
      /must NOT have additional properties/,
    );
    const body = completeCheck();
    (body.results as Record<string, unknown>[])[0] = {
      email: 'inbox@mail.test',
      category: 'primary',
      folder: 'INBOX',
    };
    expect(() => validateResponse('GET', getPath, 200, body)).toThrow(/must NOT have additional properties/);
    expect(() => validateResponse('POST', START, 200, { ...started(), expires_at: 0 })).toThrow(
      /must NOT have additional properties/,
    );
    expect(() =>
      validateResponse('POST', START, 401, { detail: 'Invalid or missing API key', code: 'auth' }),
    ).toThrow(/must NOT have additional properties/);
  });

  it('fails start addresses without the tag', () => {
    expect(() =>
      validateResponse('POST', START, 200, { check_id: CHECK_ID, accounts: ['inbox@mail.test'] }),
    ).toThrow(/must match pattern/);
  });

  it('fails a wrong error text, including another row’s text', () => {
    const cases: [string, string, number, string][] = [
      ['POST', START, 401, 'Unauthorized'],
      ['GET', getPath, 401, 'Invalid or missing API key.'],
      ['POST', START, 404, 'Check not found or expired'],
      ['GET', getPath, 404, 'No accounts available for this scope'],
      ['GET', '/nowhere', 404, 'Check not found or expired'],
      ['DELETE', START, 405, 'Not found'],
    ];
    for (const [method, path, status, detail] of cases) {
      expect(() => validateResponse(method, path, status, { detail })).toThrow(/must be equal to constant/);
    }
  });

  it('fails an undocumented status', () => {
    const cases: [string, string, number][] = [
      ['POST', START, 201],
      ['GET', getPath, 403],
      ['GET', getPath, 405],
      ['GET', '/nowhere', 405],
      ['GET', '/nowhere', 200],
      ['DELETE', START, 404],
      ['GET', getPath, 402],
    ];
    for (const [method, path, status] of cases) {
      expect(() => validateResponse(method, path, status, { detail: 'x' })).toThrow(/is not listed/);
    }
  });

  it('fails a body that is not JSON, and missing or wrong documented headers', () => {
    expect(() => validateResponse('POST', START, 200, undefined)).toThrow(/not JSON/);
    const unauthorized = { detail: 'Invalid or missing API key' };
    expect(() => validateResponse('POST', START, 401, unauthorized, JSON_HEADERS)).toThrow(
      /WWW-Authenticate is missing/,
    );
    expect(() =>
      validateResponse('POST', START, 401, unauthorized, { ...JSON_HEADERS, 'www-authenticate': 'Basic' }),
    ).toThrow(/must be equal to constant/);
    expect(() =>
      validateResponse('POST', START, 200, started(), { ...JSON_HEADERS, 'content-type': 'text/html' }),
    ).toThrow(/content-type/);
    expect(() =>
      validateResponse('POST', START, 200, started(), { 'content-type': 'application/json' }),
    ).toThrow(/Cache-Control is missing/);
    expect(() =>
      validateResponse(
        'DELETE',
        START,
        405,
        { detail: 'Method not allowed' },
        { ...JSON_HEADERS, allow: 'POST' },
      ),
    ).toThrow(/Allow/);
  });
});
