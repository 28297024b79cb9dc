import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';
import { apiResponses, BODY_ERRORS } from '../openapi/index.js';
import { CancelResult, MessageContent, MessageDetail } from './message-schemas.js';

const IdParams = Type.Object({ id: Type.String() });
const TAGS = ['Messages'];
const GET_SCHEMA = {
  operationId: 'getMessage',
  summary: "A message and what became of each recipient",
  tags: TAGS,
  params: IdParams,
  response: apiResponses({ 200: MessageDetail }, { errors: [404] }),
};
const CANCEL_SCHEMA = {
  operationId: 'cancelMessage',
  summary: 'Cancel a scheduled send before it is due',
  tags: TAGS,
  params: IdParams,
  response: apiResponses({ 200: CancelResult }, { errors: [404, 409, ...BODY_ERRORS] }),
};
const CONTENT_SCHEMA = {
  operationId: 'getMessageContent',
  summary: "A message's HTML, text and MIME as handed over",
  tags: TAGS,
  params: IdParams,
  response: apiResponses({ 200: MessageContent }, { errors: [404] }),
};

const messageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const messages = app.services.messages;

  app.get('/v1/messages/:id', { schema: GET_SCHEMA }, async (request) => ok(await messages.get(workspaceOf(request), request.params.id)));

  // Before a scheduled send is due (issue 16, point 8); 409 once it is, or for a send that was never scheduled.
  app.post('/v1/messages/:id/cancel', { schema: CANCEL_SCHEMA }, async (request) =>
    ok(await app.services.scheduledSends.cancel(workspaceOf(request), request.params.id)),
  );

  app.get('/v1/messages/:id/content', { schema: CONTENT_SCHEMA }, async (request) =>
    ok(await messages.content(workspaceOf(request), request.params.id)),
  );
};

export default messageRoutes;
