import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { Type } from 'typebox';
import { unknownFieldsFirst, withoutRequired } from './unknown-fields-first.js';

/**
 * Bodies are validated strictly (no type coercion, unknown fields refused so a
 * typo such as `form_email` or an unsupported `cc` is not silently dropped);
 * query strings and path parameters are text on the wire, so they are coerced.
 */
// validateSchema: false: the schemas are constants of this code (and the OpenAPI document made of them is
// checked against the OpenAPI 3.1 meta-schema by the tests); compiling JSON Schema's meta-schema to check
// them again would slow the first request of every process.
const bodyAjv = new Ajv({ coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false, strict: false, validateSchema: false });
const queryAjv = new Ajv({ coerceTypes: true, removeAdditional: false, useDefaults: true, allErrors: false, strict: false, validateSchema: false });

/**
 * Each schema is compiled when its route is first called, not when Fastify
 * registers the route: compiling all of them (and Ajv's meta-schema) took
 * some 0.4 s of CPU and megabytes of generated code at every start, for
 * routes a process may never serve. Fastify reads a failure's `errors` off
 * the function it was given, so they are copied over.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  let compiled: ValidateFunction | undefined;
  let lenient: ValidateFunction | undefined;
  const validate = (data: unknown): boolean => {
    compiled ??= ajv.compile(schema as object);
    const valid = compiled(data);
    if (valid || !compiled.errors) validate.errors = compiled.errors;
    else validate.errors = unknownFieldsFirst(schema, data, compiled.errors, () => (lenient ??= ajv.compile(withoutRequired(schema) as object)));
    return valid;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate;
};

const PART_NAMES: Record<string, string> = { body: 'The request body', querystring: 'The query string', params: 'The path' };

/** Turns the first schema error into one sentence that names the field. */
export function formatValidationError(errors: ErrorObject[], dataVar: string): Error {
  const error = errors[0];
  if (!error) return new Error('The request is not valid');
  const base = error.instancePath
    .split('/')
    .slice(1)
    .reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), '');
  const child = (property: string) => (base ? `${base}.${property}` : property);
  const field = base || PART_NAMES[dataVar] || dataVar;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return new Error(`${child(String(params.missingProperty))} is required`);
    case 'additionalProperties':
      return new Error(
        `${child(String(params.additionalProperty))} is not a supported ${dataVar === 'querystring' && !base ? 'query parameter' : 'field'}${params.v1Name ? ` (did you mean ${child(String(params.v1Name))}?)` : ''}`,
      );
    case 'type':
      return new Error(`${field} must be ${article(String(params.type))}`);
    case 'minimum':
      return new Error(`${field} must be at least ${String(params.limit)}`);
    case 'maximum':
      return new Error(`${field} must be at most ${String(params.limit)}`);
    case 'minLength':
      return new Error(params.limit === 1 ? `${field} must not be empty` : `${field} must be at least ${String(params.limit)} characters long`);
    case 'maxLength':
      return new Error(`${field} must be at most ${String(params.limit)} characters long`);
    case 'enum':
      return new Error(`${field} must be one of ${(params.allowedValues as unknown[]).join(', ')}`);
    default:
      return new Error(`${field} ${error.message ?? 'is not valid'}`);
  }
}

function article(type: string): string {
  const names: Record<string, string> = {
    object: 'a JSON object',
    array: 'an array',
    integer: 'an integer',
    string: 'a string',
    number: 'a number',
    boolean: 'a boolean',
    'string,null': 'a string',
  };
  return names[type] ?? `of type ${type}`;
}

/**
 * `limit` and `offset` of a paged list (/v1's and the dashboard's logs and
 * suppression list). Query text is coerced to a number, and
 * `99999999999999999999` is one: bounded here, such an offset answers 400
 * rather than reach the store, which cannot bind it (a 500: "datatype
 * mismatch" on SQLite, out of range on PostgreSQL).
 */
export const PAGING = {
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  offset: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
};

/** A query string that may hold nothing: what a route that declares no parameters validates against. */
const NO_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false } as const;

/**
 * A query parameter a route does not know answers 400 naming it, as an unknown
 * body field does: `?statsu=failed` must not quietly list everything. Routes
 * that take parameters declare them with `additionalProperties: false`; every
 * other route (but `except`: the health check, which load balancers call with
 * what they like) gets a schema that takes none. Register before the routes.
 */
export function refuseUnknownQueryParameters(app: FastifyInstance, except: string[]): void {
  app.addHook('onRoute', (route) => {
    if (except.includes(route.url) || route.schema?.querystring) return;
    route.schema = { ...route.schema, querystring: NO_PARAMETERS };
  });
}
