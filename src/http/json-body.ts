import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../lib/errors.js';
import { describeJsonError, jsonErrorPosition } from '../lib/json-error-position.js';

/** The start of the 400 of a body that is not JSON; the position follows where one is found. */
export const NOT_JSON = 'Request body is not valid JSON';

/**
 * Fastify's own JSON parser (secure-json-parse, refusing `__proto__` and `constructor.prototype` keys),
 * whose refusal of a malformed body says where the body goes wrong: "Request body is not valid JSON:
 * unexpected '}' at line 1, column 14". Only the one character found is quoted, never the body around it.
 */
export function parseJsonBodiesSayingWhere(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parse(request, body as string, (error, parsed) => {
      if (!error || (error as { code?: string }).code !== 'FST_ERR_CTP_INVALID_JSON_BODY') return done(error, parsed);
      // No position when the text is JSON after all: a key secure-json-parse refuses, which the plain sentence covers.
      const position = jsonErrorPosition(body as string);
      done(position ? new ValidationError(`${NOT_JSON}: ${describeJsonError(position)}`) : error, undefined);
    });
  });
}
