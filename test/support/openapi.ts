// Owns checking real HTTP responses against openapi.yaml, so the document cannot drift from the code: every
// response a test receives through the test service must be one the document lists, with a body and headers
// its schemas accept.
import { readFileSync } from 'node:fs';
import { dereference } from '@apidevtools/json-schema-ref-parser';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
const HTTP_METHODS: readonly HttpMethod[] = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
];

export type SchemaObject = Record<string, unknown>;
export interface HeaderObject {
  description?: string;
  required?: boolean;
  schema: SchemaObject;
  'x-addition'?: boolean;
}
export interface MediaTypeObject {
  schema: SchemaObject;
  examples?: Record<string, { summary?: string; value: unknown }>;
}
export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, MediaTypeObject>;
  'x-addition'?: boolean;
}
export type Responses = Record<string, ResponseObject>;
export interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  schema: SchemaObject;
}
export interface OperationObject {
  operationId: string;
  'x-addition'?: boolean;
  summary: string;
  security?: Record<string, string[]>[];
  parameters?: ParameterObject[];
  requestBody?: unknown;
  responses: Responses;
}
export type PathItem = Partial<Record<HttpMethod, OperationObject>>;
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  servers: { url: string; variables?: Record<string, { default: string; description?: string }> }[];
  security?: Record<string, string[]>[];
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, SchemaObject>;
    securitySchemes: Record<string, { type: string; scheme?: string }>;
    headers?: Record<string, HeaderObject>;
    responses?: Record<string, ResponseObject>;
  };
  'x-additional-responses': {
    unmatchedPath: Responses;
    unmatchedMethod: Responses;
    anyRequest: Responses;
  };
}

const OPENAPI_PATH = new URL('../../openapi.yaml', import.meta.url);

/** openapi.yaml as written, `$ref`s and all (for tests that check what the document refers to). */
const openApiSource = parse(readFileSync(OPENAPI_PATH, 'utf8')) as OpenApiDocument;

/**
 * The same document with every `$ref` replaced by what it points to, by a kept library (json-schema-ref-parser);
 * only local references are allowed, so nothing outside the file can be read.
 */
export const openApiDocument = (await dereference(structuredClone(openApiSource), {
  resolve: { external: false },
  dereference: { circular: false },
})) as OpenApiDocument;

// OpenAPI 3.1 schemas are JSON Schema 2020-12, hence Ajv2020; strict, so a typo in a keyword fails loudly.
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
// The OpenAPI 3.1 base vocabulary's annotations, and our own extension.
ajv.addVocabulary(['discriminator', 'xml', 'externalDocs', 'example', 'x-addition']);

const compiled = new WeakMap<object, ValidateFunction>();
const validatorFor = (schema: SchemaObject): ValidateFunction => {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
};

const describeErrors = (errors: ErrorObject[] | null | undefined, dataVar: string): string =>
  ajv.errorsText(errors, { dataVar, separator: '; ' });

const segmentsOf = (path: string): string[] => path.split('/');

/** Whether a path matches a template, `{name}` standing for exactly one non-empty segment. */
const matchesTemplate = (template: string, path: string): boolean => {
  const want = segmentsOf(template);
  const got = segmentsOf(path);
  return (
    want.length === got.length &&
    want.every((segment, index) => {
      const actual = got[index] ?? '';
      return /^\{\w+\}$/.test(segment) ? actual !== '' : segment === actual;
    })
  );
};

const parameterCount = (template: string): number => (template.match(/\{\w+\}/g) ?? []).length;

export const methodsOf = (item: PathItem): HttpMethod[] => HTTP_METHODS.filter((method) => item[method]);

interface Resolution {
  /** Where the responses come from, for messages. */
  source: string;
  responses: Responses;
  /** For an unmatched method: the methods the path's templates define, which `Allow` must list. */
  allow?: string[];
}

/** The operation a request reaches, as API Gateway routes: among templates defining the method, literal first. */
const resolveRequest = (method: string, path: string): Resolution => {
  const verb = method.toLowerCase() as HttpMethod;
  const templates = Object.keys(openApiDocument.paths)
    .filter((template) => matchesTemplate(template, path))
    .sort((a, b) => parameterCount(a) - parameterCount(b));
  const additions = openApiDocument['x-additional-responses'];
  for (const template of templates) {
    const operation = openApiDocument.paths[template]?.[verb];
    if (operation) return { source: `${verb.toUpperCase()} ${template}`, responses: operation.responses };
  }
  if (templates.length > 0) {
    const allow = new Set(
      templates.flatMap((template) =>
        methodsOf(openApiDocument.paths[template] ?? {}).map((m) => m.toUpperCase()),
      ),
    );
    return {
      source: `x-additional-responses.unmatchedMethod (${templates.join(', ')})`,
      responses: additions.unmatchedMethod,
      allow: [...allow],
    };
  }
  return { source: 'x-additional-responses.unmatchedPath', responses: additions.unmatchedPath };
};

type Headers = Record<string, string | string[] | undefined>;

const headerValue = (headers: Headers, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
};

const checkHeaders = (response: ResponseObject, headers: Headers, allow: string[] | undefined): string[] => {
  const problems: string[] = [];
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    const { required, schema } = header;
    const value = headerValue(headers, name);
    if (value === undefined) {
      if (required) problems.push(`header ${name} is missing`);
      continue;
    }
    const validate = validatorFor(schema);
    if (!validate(value)) problems.push(describeErrors(validate.errors, `header ${name}`));
  }
  if (allow) {
    const listed = (headerValue(headers, 'allow') ?? '').split(', ').sort();
    if (listed.join(', ') !== [...allow].sort().join(', ')) {
      problems.push(
        `header Allow is "${headerValue(headers, 'allow')}", the document's methods are ${allow}`,
      );
    }
  }
  const contentType = headerValue(headers, 'content-type')?.split(';')[0]?.trim();
  const documented = Object.keys(response.content ?? {});
  if (documented.length > 0 && (contentType === undefined || !documented.includes(contentType))) {
    problems.push(`content-type is ${contentType}, the document says ${documented.join(' or ')}`);
  }
  return problems;
};

/**
 * Throws unless openapi.yaml documents this response: the operation the request reaches (or, for other paths and
 * methods, the `x-additional-responses` additions), a response for this status, a JSON body its schema accepts
 * and, when `headers` are given, the documented headers and content type.
 */
export const validateResponse = (
  method: string,
  path: string,
  status: number,
  body: unknown,
  headers?: Headers,
): void => {
  const pathOnly = path.split('?')[0] ?? path;
  const { source, responses, allow } = resolveRequest(method, pathOnly);
  const documented =
    responses[String(status)] ?? openApiDocument['x-additional-responses'].anyRequest[String(status)];
  const mismatch = (problem: string): Error =>
    new Error(
      `openapi.yaml does not document ${method.toUpperCase()} ${pathOnly} -> ${status} (${source}): ${problem}\n` +
        `body: ${JSON.stringify(body)?.slice(0, 2000)}`,
    );
  if (!documented) {
    throw mismatch(`status ${status} is not listed (listed: ${Object.keys(responses).join(', ')})`);
  }
  const response = documented;
  const problems = headers ? checkHeaders(response, headers, allow) : [];
  const media = response.content?.['application/json'];
  if (media) {
    if (body === undefined) problems.push('the body is not JSON');
    else {
      const validate = validatorFor(media.schema);
      if (!validate(body)) problems.push(describeErrors(validate.errors, 'body'));
    }
  } else if (body !== undefined) problems.push('a body is sent but none is documented');
  if (problems.length > 0) throw mismatch(problems.join('; '));
};
