import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { withoutApiKeys } from '../http/api-guard.js';
import { ALWAYS_PRESENT } from './responses.js';

/** The document's address: no key needed, no rate-limit headers (like the health check, it is not behind the API guard). */
export const OPENAPI_PATH = '/v1/openapi.json';
/** The API reference page (Swagger UI, served from node_modules: nothing from a CDN). */
export const DOCS_PREFIX = '/docs';
/** Only these routes are the public API; the dashboard's (/, /dashboard/api), /compat/… and /docs stay out of the document. */
const DOCUMENTED_PREFIX = '/v1/';

const SECURITY_SCHEME = 'apiKey';

const packageJson = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };

/**
 * Swagger UI's page runs its own scripts and styles only: the CSP of the
 * dashboard (no inline script, nothing from elsewhere), plus `'unsafe-inline'`
 * styles, which Swagger UI's React components set as attributes, and `data:`
 * images, its icons.
 */
const DOCS_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
].join('; ');

/**
 * Registers the OpenAPI document, built by @fastify/swagger from the route
 * schemas that validate the requests, at OPENAPI_PATH, and its reference
 * page at DOCS_PREFIX. Register before the routes: the plugin learns them as
 * they are added.
 *
 * Response schemas document answers and never shape them: Fastify would
 * otherwise serialise with fast-json-stringify, which drops every property a
 * schema does not name and coerces types. Answers stay exactly what they
 * were (`JSON.stringify`), and the test suite checks each against the
 * document instead (test/helpers/openapi-drift.ts).
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Mailroom API',
        version: packageJson.version,
        description:
          'Transactional e-mail: send, read logs and statistics, manage domains, API keys, suppressions and webhooks. ' +
          'Every response but the health check is an envelope, `{success: true, data}` or `{success: false, error}`.',
      },
      components: { securitySchemes: { [SECURITY_SCHEME]: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      security: [{ [SECURITY_SCHEME]: [] }],
    },
    transform: ({ schema, url }) => ({ schema: url.startsWith(DOCUMENTED_PREFIX) ? schema : { ...schema, hide: true }, url }),
    transformObject: (document) => markAlwaysPresentHeaders('openapiObject' in document ? document.openapiObject : document.swaggerObject),
  });

  app.get(
    OPENAPI_PATH,
    {
      schema: {
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI 3.1 document',
        tags: ['Meta'],
        security: [],
        response: { 200: Type.Object({}, { additionalProperties: true, description: 'The OpenAPI 3.1 document of the API.' }) },
      },
      config: { withoutApiKey: true },
    },
    async () => app.swagger(),
  );

  await app.register(async (docs) => {
    withoutApiKeys(docs);
    await docs.register(swaggerUi, {
      routePrefix: DOCS_PREFIX,
      staticCSP: DOCS_CSP,
      // BaseLayout: the page without Swagger UI's top bar (Fastify's logo and a box to load other documents).
      uiConfig: { layout: 'BaseLayout', deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0 },
      theme: { title: 'Mailroom API reference' },
    });
  });
}

/**
 * Turns the responses.ts mark into OpenAPI's `required: true` on the header
 * object (a header's schema cannot say it), and leaves a query parameter with
 * a default optional: the server fills it in (`limit`, `offset`), though the
 * schema lists it as required so that the handler always has a value.
 */
function markAlwaysPresentHeaders<T>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, OperationObject>> }).paths ?? {};
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'query' && parameter.schema && 'default' in parameter.schema) parameter.required = false;
      }
      for (const response of Object.values(operation.responses ?? {})) {
        for (const header of Object.values(response.headers ?? {})) {
          const marked = (header.schema as Record<symbol, unknown>)[ALWAYS_PRESENT] === true;
          delete (header.schema as Record<symbol, unknown>)[ALWAYS_PRESENT];
          header.required = marked;
        }
      }
    }
  }
  return document;
}

interface OperationObject {
  parameters?: { in: string; required?: boolean; schema?: object }[];
  responses?: Record<string, { headers?: Record<string, HeaderObject> }>;
}

interface HeaderObject {
  schema: object;
  required?: boolean;
}
