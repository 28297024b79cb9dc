import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sendingKeyOf, workspaceOf } from '../../http/api-guard.js';
import { SEND_BODY_LIMIT, sendBodyBudgetHooks } from '../../sending/index.js';
import { ResendBatchBody, ResendEmailBody } from './email-request.js';
import { createResendEmails } from './resend-emails.js';

const IdParams = Type.Object({ id: Type.String() });

/** Send and batch draw on the send budget and take an Idempotency-Key, as /v1/send does. */
const emailRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const emails = createResendEmails(app.services);
  const sending = { bodyLimit: SEND_BODY_LIMIT, ...sendBodyBudgetHooks(app), config: { rateLimitClass: 'send' as const, idempotent: true, keyCheckedOnWrite: true } };

  app.post('/emails', { ...sending, schema: { body: ResendEmailBody } }, async (request) =>
    emails.send(workspaceOf(request), request.body, sendingKeyOf(request)),
  );
  app.post('/emails/batch', { ...sending, schema: { body: ResendBatchBody } }, async (request) =>
    emails.batch(workspaceOf(request), request.body, sendingKeyOf(request)),
  );
  app.get('/emails/:id', { schema: { params: IdParams } }, async (request) => emails.get(workspaceOf(request), request.params.id));
  app.post('/emails/:id/cancel', { schema: { params: IdParams } }, async (request) => emails.cancel(workspaceOf(request), request.params.id));
};

export default emailRoutes;
