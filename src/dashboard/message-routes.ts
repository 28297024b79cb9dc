import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { attachmentDisposition } from '../http/content-disposition.js';
import { ok } from '../http/envelope.js';
import { framePolicy, inertMailHtml } from './mail-html-frame.js';
import { workspaceIdOf } from './workspace-access.js';

const MessageParams = Type.Object({ workspaceId: Type.String(), id: Type.String() });
/** `:n`: an attachment's 0-based place in the detail's `attachments` (at most 100 of them). */
const AttachmentParams = Type.Object({ workspaceId: Type.String(), id: Type.String(), n: Type.String({ pattern: '^(0|[1-9][0-9]{0,2})$' }) });
/**
 * An attachment's answer under a policy of its own: opened rather than saved,
 * an HTML or SVG file would still be an opaque origin with nothing allowed
 * (no script, nothing loaded), never a page of the dashboard's.
 */
const ATTACHMENT_POLICY = "default-src 'none'; sandbox";
/** The stored type when it is a header value at all (it passed the send's check); bytes otherwise. */
const servedType = (type: string) => (/^[\x20-\x7e]+$/.test(type) ? type : 'application/octet-stream');

/** `remote_images=1`: the reader asked for the images the message links to. */
const HtmlQuery = Type.Object({ remote_images: Type.Optional(Type.Literal('1')) }, { additionalProperties: false });

/** Before anything else, as for the frame: an error answer of the route is under the same policy. */
async function attachmentPolicy(_request: FastifyRequest, reply: FastifyReply) {
  reply.header('content-security-policy', ATTACHMENT_POLICY);
}

/**
 * A message's history and content, through the same service as
 * /v1/messages: every role reads them. Besides /v1's two answers, the MIME as
 * a `.eml` download and the HTML body as a document for the message page's
 * sandboxed frame (mail-html-frame.ts).
 */
export const messageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const messages = app.services.messages;
  const base = '/workspaces/:workspaceId/messages/:id';
  const read = { ability: 'read' } as const;

  app.get(base, { schema: { params: MessageParams }, config: read }, async (request) => ok(await messages.get(workspaceIdOf(request), request.params.id)));

  // A scheduled send, before it is due: admins and developers, as for a test e-mail.
  app.post(`${base}/cancel`, { schema: { params: MessageParams }, config: { ability: 'configure' } }, async (request) =>
    ok(await app.services.scheduledSends.cancel(workspaceIdOf(request), request.params.id)),
  );

  app.get(`${base}/content`, { schema: { params: MessageParams }, config: read }, async (request) =>
    ok(await messages.content(workspaceIdOf(request), request.params.id)),
  );

  app.get(`${base}/raw`, { schema: { params: MessageParams }, config: read }, async (request, reply) => {
    const { id, raw } = await messages.raw(workspaceIdOf(request), request.params.id);
    return reply.type('message/rfc822').header('content-disposition', `attachment; filename="${id}.eml"`).send(raw);
  });

  // Saved, never shown: attachment disposition, nosniff (helmet's), and a sandbox should a browser open it anyway.
  app.get(`${base}/attachments/:n`, { schema: { params: AttachmentParams }, config: read, helmet: { contentSecurityPolicy: false }, onRequest: attachmentPolicy }, async (request, reply) => {
    const { filename, content_type, content } = await messages.attachment(workspaceIdOf(request), request.params.id, Number(request.params.n));
    return reply
      .header('content-disposition', attachmentDisposition(filename))
      .header('cache-control', 'private, no-store')
      .type(servedType(content_type))
      .send(content);
  });

  // helmet's other headers stay (nosniff, no-referrer, X-Frame-Options SAMEORIGIN); its CSP gives way to the frame's.
  app.get(
    `${base}/html`,
    { schema: { params: MessageParams, querystring: HtmlQuery }, config: read, helmet: { contentSecurityPolicy: false }, onRequest: framePolicy },
    async (request, reply) => reply.type('text/html; charset=utf-8').send(inertMailHtml(await messages.html(workspaceIdOf(request), request.params.id))),
  );
};
