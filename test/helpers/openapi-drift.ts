import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';

/**
 * Every answer the test suite receives from a /v1 route is checked against
 * the OpenAPI document the app serves: the status must be documented for
 * that operation, the body valid against its schema, and every header the
 * document says is always there present. So the document cannot drift from
 * what the API does. A mismatch turns the answer into a 500 whose body says
 * what drifted (the test's own assertion then fails), is printed at once, and
 * fails the test app's close().
 */

export interface ObservedResponse {
  method: string;
  /** The matched route's path as Fastify names it (`/v1/domains/:id`). */
  route: string;
  status: number;
  headers: Record<string, unknown>;
  /** The body as sent. */
  body: string;
}

interface HeaderObject {
  required?: boolean;
  schema?: { type?: string };
}
interface ResponseObject {
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: object }>;
}
type OpenApiDocument = { paths?: Record<string, Record<string, { responses?: Record<string, ResponseObject> }>> };

const ajv = new Ajv({ strict: false, allErrors: true });
/** Compiled body schemas, by document and response: every test app serves the same document. */
const validators = new Map<string, ValidateFunction>();

/** `/v1/domains/:id` as the document writes it, `/v1/domains/{id}`. */
export function openApiPath(route: string): string {
  return route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** What is wrong with one answer by the document, or null when it is what the document says. */
export function responseProblem(document: object, response: ObservedResponse, documentKey = JSON.stringify(document)): string | null {
  const path = openApiPath(response.route);
  const where = `${response.method} ${path} answered ${response.status}`;
  const operation = (document as OpenApiDocument).paths?.[path]?.[response.method.toLowerCase()];
  if (!operation) return `${response.method} ${path} is not in the OpenAPI document`;
  const documented = operation.responses?.[String(response.status)];
  if (!documented) return `${where}, a status the OpenAPI document does not list (it lists ${Object.keys(operation.responses ?? {}).join(', ')})`;

  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    const value = response.headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required) return `${where} without the header ${name}, which the document says is always there`;
      continue;
    }
    if (header.schema?.type === 'integer' && !/^-?\d+$/.test(String(value))) return `${where} with ${name}: ${String(value)}, not an integer`;
  }

  const schema = documented.content?.['application/json']?.schema;
  if (!schema) return null;
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return `${where} with a body that is not JSON: ${response.body.slice(0, 200)}`;
  }
  const key = `${documentKey.length}:${hashOf(documentKey)} ${response.method} ${path} ${response.status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(key, validate);
  }
  if (validate(body)) return null;
  const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  return `${where} with a body the document does not allow: ${errors.join('; ')}; body: ${response.body.slice(0, 500)}`;
}

function hashOf(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (hash * 31 + text.charCodeAt(i)) | 0;
  return hash;
}

/**
 * Adds the check to an app before it is ready. Returns what it found so far,
 * and a function that throws when it found anything (call it when the app closes).
 */
export function checkResponsesAgainstOpenApi(app: FastifyInstance): { problems: string[]; assertNone(): void } {
  const problems: string[] = [];
  let document: { value: object; key: string } | undefined;
  app.addHook('onSend', async (request, reply, payload) => {
    const route = request.routeOptions.url;
    // Only the API's operations: the dashboard's routes, /docs and answers to no route (404, 405) are not in the document.
    if (route === undefined || !route.startsWith('/v1/') || request.method === 'HEAD') return payload;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    if (body === null) return payload;
    if (!document) {
      const value = app.swagger();
      document = { value, key: JSON.stringify(value) };
    }
    const problem = responseProblem(document.value, { method: request.method, route, status: reply.statusCode, headers: reply.getHeaders(), body }, document.key);
    if (!problem) return payload;
    problems.push(problem);
    console.error(`OpenAPI drift: ${problem}`);
    reply.code(500).type('application/json');
    return JSON.stringify({ success: false, error: `OpenAPI drift: ${problem}` });
  });
  return {
    problems,
    assertNone() {
      if (problems.length > 0) throw new Error(`The answers of ${problems.length} request(s) drifted from the OpenAPI document:\n${problems.join('\n')}`);
    },
  };
}
