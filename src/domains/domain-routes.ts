import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';
import { apiResponses, BODY_ERRORS, Deleted, Nullable, Timestamp } from '../openapi/index.js';

/** Also the dashboard's (dashboard/): one rule for both ways in. */
export const DomainBody = Type.Object({ domain: Type.String() }, { additionalProperties: false });
const IdParams = Type.Object({ id: Type.String() });

/** SPEC.md §2.5's four fields: what the list answers. */
const DOMAIN_FIELDS = {
  id: Type.String({ description: 'dom_…' }),
  domain: Type.String(),
  status: Type.String({ enum: ['pending', 'verified', 'failed'] }),
  created_at: Timestamp,
};
const DomainSummary = Type.Object(DOMAIN_FIELDS, { additionalProperties: false });
/** What verification found at a record's name (domains/record-checks.ts). */
const RecordCheck = Type.Object(
  { found: Type.Boolean(), matches: Type.Boolean(), values: Type.Array(Type.String()), error: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
const DnsRecord = Type.Object(
  {
    type: Type.String({ enum: ['TXT', 'MX', 'CNAME'] }),
    name: Type.String(),
    value: Type.String(),
    priority: Type.Optional(Type.Integer({ description: 'MX only.' })),
    purpose: Type.String({ enum: ['dkim', 'spf', 'return_path_mx', 'return_path_spf', 'dmarc', 'tracking'], description: '`tracking`: the CNAME of `tracking_domain`, last, while the domain names one.' }),
    check: Type.Optional(RecordCheck),
  },
  { additionalProperties: false },
);
const DomainDetail = Type.Object(
  {
    ...DOMAIN_FIELDS,
    verified_at: Nullable(Timestamp),
    last_checked_at: Nullable(Timestamp),
    error: Nullable(Type.String({ description: 'Why the last verification did not succeed.' })),
    records: Type.Array(DnsRecord),
    upstream_ids: Type.Array(Type.String(), { description: "The workspace's upstreams a send from the domain goes through, in order (docs/upstreams.md); empty: the server's." }),
    open_tracking: Type.Boolean({ description: "Whether its messages' opens are tracked, unless a send says otherwise (docs/domains.md#tracking)." }),
    click_tracking: Type.Boolean({ description: "Whether its messages' links are tracked, unless a send says otherwise." }),
    tracking_domain: Nullable(Type.String({ description: "The host its tracked URLs use; null: PUBLIC_URL's." })),
    tracking_domain_status: Nullable(Type.String({ enum: ['pending', 'verified', 'failed'], description: "The tracking domain's CNAME as verification last saw it, apart from `status`; null without a tracking domain." })),
  },
  { additionalProperties: false },
);
/** Also the dashboard's. */
export const DomainPatch = Type.Object(
  {
    upstream_ids: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 20 })),
    open_tracking: Type.Optional(Type.Boolean()),
    click_tracking: Type.Optional(Type.Boolean()),
    tracking_domain: Type.Optional(Nullable(Type.String({ maxLength: 253, description: 'A host under the domain, such as links.example.com; null removes it.' }))),
  },
  { additionalProperties: false },
);
const TAGS = ['Domains'];

const domainRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const domains = app.services.domains;

  app.get('/v1/domains', { schema: { operationId: 'listDomains', summary: 'List the domains', tags: TAGS, response: apiResponses({ 200: Type.Array(DomainSummary) }) } }, async (request) => ok(await domains.list(workspaceOf(request))));

  app.post(
    '/v1/domains',
    { schema: { operationId: 'createDomain', summary: 'Add a domain', tags: TAGS, body: DomainBody, response: apiResponses({ 201: DomainDetail }, { errors: [409, ...BODY_ERRORS] }) } },
    async (request, reply) =>
    reply.code(201).send(ok(await domains.add(workspaceOf(request), request.body.domain))),
  );

  app.get('/v1/domains/:id', { schema: { operationId: 'getDomain', summary: 'A domain and its DNS records', tags: TAGS, params: IdParams, response: apiResponses({ 200: DomainDetail }, { errors: [404] }) } }, async (request) =>
    ok(await domains.get(workspaceOf(request), request.params.id)),
  );

  app.patch(
    '/v1/domains/:id',
    { schema: { operationId: 'updateDomain', summary: "Set the domain's route through the workspace's upstreams, its tracking switches and tracking domain", tags: TAGS, params: IdParams, body: DomainPatch, response: apiResponses({ 200: DomainDetail }, { errors: [404, ...BODY_ERRORS] }) } },
    async (request) => ok(await domains.update(workspaceOf(request), request.params.id, request.body)),
  );

  app.delete(
    '/v1/domains/:id',
    { schema: { operationId: 'deleteDomain', summary: 'Delete a domain', tags: TAGS, params: IdParams, response: apiResponses({ 200: Deleted('id') }, { errors: [404, ...BODY_ERRORS] }) } },
    async (request) =>
    ok(await domains.remove(workspaceOf(request), request.params.id)),
  );

  app.post(
    '/v1/domains/:id/verify',
    { schema: { operationId: 'verifyDomain', summary: "Look the domain's records up over DNS", tags: TAGS, params: IdParams, response: apiResponses({ 200: DomainDetail }, { errors: [404, ...BODY_ERRORS] }) } },
    async (request) =>
    ok(await domains.verify(workspaceOf(request), request.params.id)),
  );
};

export default domainRoutes;
