import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ok } from '../http/envelope.js';
import { ErrorEnvelope, Ok } from '../openapi/index.js';

export const SES_EVENTS_PATH = '/v1/inbound/ses';

/** SNS's messages are at most 256 KB; room for the envelope around one. */
const BODY_LIMIT = 512 * 1024;

const SCHEMA = {
  operationId: 'receiveSesNotification',
  summary: "SES's events through an SNS HTTPS subscription (no API key: the SNS signature is checked)",
  description: 'See docs/ses-notifications.md. SNS posts with `Content-Type: text/plain; charset=UTF-8`; the body is its JSON message.',
  tags: ['Inbound'],
  security: [],
  // Any body reaches the service, which answers 403 for anything that is not a valid SNS message (never a 400 that would tell a prober which field).
  body: Type.Unknown({
    description:
      "SNS's JSON message: Type (Notification, SubscriptionConfirmation, UnsubscribeConfirmation), MessageId, TopicArn, Subject, Message, Timestamp, SignatureVersion, Signature, SigningCertURL, SubscribeURL, Token, UnsubscribeURL.",
  }),
  // No key, so none of the guard's answers (401, 429) nor its rate-limit headers: SNS is not rate-limited.
  response: {
    200: Type.Object(Ok(Type.Object({ message_id: Type.String({ description: "SNS's MessageId." }), outcome: Type.String({ enum: ['received', 'duplicate', 'confirming', 'logged'] }) }, { additionalProperties: false })).properties, {
      additionalProperties: false,
      description: 'A valid notification: recorded (`received`, applied right after this answer), seen before (`duplicate`), a subscription being confirmed (`confirming`) or an unsubscription logged (`logged`).',
    }),
    ...Object.fromEntries(
      (
        [
          [400, 'A query parameter (the path takes none), or an application/json body that is not JSON.'],
          [403, 'Not a valid SNS notification from an allowed topic: the sentence says which check failed (SES_SNS_TOPIC_ARNS unset, topic, timestamp, certificate host, signature).'],
          [413, 'The request body is too large.'],
          [414, 'The request URL is longer than the API reads.'],
          [415, 'The body is neither text/plain nor JSON.'],
          [500, 'An unexpected failure ("Internal server error"); SNS tries again.'],
          [503, 'The database did not answer; SNS tries again.'],
        ] as const
      ).map(([status, description]) => [status, Type.Object(ErrorEnvelope.properties, { additionalProperties: false, description })]),
    ),
  },
};

const sesEventsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // SNS's content type, for this path only (every other takes JSON alone): its body is JSON all the same.
  // Text that is not JSON reaches the service as a string, which refuses it as no SNS message (403).
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(null, body);
    }
  });
  app.post(SES_EVENTS_PATH, { schema: SCHEMA, bodyLimit: BODY_LIMIT, config: { withoutApiKey: true } }, async (request) => ok(await app.services.sesEvents.receive(request.body)));
};

export default sesEventsRoutes;
