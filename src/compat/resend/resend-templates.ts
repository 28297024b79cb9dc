import type { Services } from '../../composition/index.js';
import { ValidationError } from '../../lib/errors.js';
import type { TemplateCreateInput, TemplateUpdateInput, TemplateView } from '../../templates/index.js';
import { listPage, type ListPaging, type ResendList } from './list-page.js';

/** A variable as Resend's SDK declares it; `fallback_value` is what its `fallbackValue` becomes on the wire. */
export interface ResendVariableInput {
  key: string;
  type: 'string' | 'number';
  fallback_value?: string | number | null;
}

/** Resend's create and update bodies, in its field names: `reply_to` a string or a list, as its SDK sends it. */
export interface ResendTemplateInput {
  name?: string;
  alias?: string | null;
  subject?: string | null;
  html?: string;
  text?: string | null;
  from?: string | null;
  reply_to?: string | string[] | null;
  variables?: ResendVariableInput[];
}

export interface ResendTemplate {
  object: 'template';
  id: string;
  name: string;
  alias: string | null;
  status: 'draft' | 'published';
  subject: string | null;
  html: string;
  text: string | null;
  from: string | null;
  reply_to: string[] | null;
  variables: { key: string; type: 'string' | 'number'; fallback_value: string | number | null; created_at: string; updated_at: string }[];
  published_at: string | null;
  has_unpublished_versions: boolean;
  current_version_id: string;
  created_at: string;
  updated_at: string;
}

type ResendTemplateSummary = Pick<ResendTemplate, 'id' | 'name' | 'alias' | 'status' | 'published_at' | 'created_at' | 'updated_at'>;

/** A template holds one reply-to address (the send's own `reply_to` may hold several). */
function replyToOf(value: string | string[] | null | undefined): string | null | undefined {
  if (!Array.isArray(value)) return value;
  if (value.length > 1) throw new ValidationError('reply_to: a template holds one reply-to address');
  return value[0] ?? null;
}

function contentOf(input: ResendTemplateInput): TemplateUpdateInput {
  return {
    name: input.name,
    alias: input.alias,
    subject: input.subject,
    html: input.html,
    text: input.text,
    from: input.from,
    reply_to: replyToOf(input.reply_to),
    variables: input.variables,
  };
}

function templateOf(view: TemplateView): ResendTemplate {
  return {
    object: 'template',
    id: view.id,
    name: view.name,
    alias: view.alias,
    status: view.status,
    subject: view.subject,
    html: view.html,
    text: view.text,
    from: view.from,
    reply_to: view.reply_to === null ? null : [view.reply_to],
    variables: view.variables.map(({ key, type, fallback_value }) => ({ key, type, fallback_value: fallback_value ?? null, created_at: view.created_at, updated_at: view.updated_at })),
    published_at: view.published_at,
    has_unpublished_versions: view.has_unpublished_versions,
    current_version_id: view.current_version_id,
    created_at: view.created_at,
    updated_at: view.updated_at,
  };
}

const summaryOf = ({ id, name, alias, status, published_at, created_at, updated_at }: TemplateView): ResendTemplateSummary =>
  ({ id, name, alias, status, published_at, created_at, updated_at });

/** A workspace's templates are few enough to page through whole, as its domains and keys are. */
const ALL = { limit: Number.MAX_SAFE_INTEGER, offset: 0 };

/** Resend's template routes on /v1's template service: the same drafts, versions and checks, Resend's shapes. */
export function createResendTemplates(services: Pick<Services, 'templates'>) {
  const templates = services.templates;
  const reference = (view: TemplateView) => ({ object: 'template' as const, id: view.id });
  return {
    async create(workspaceId: string, input: ResendTemplateInput & { name: string; html: string }) {
      return reference(await templates.create(workspaceId, contentOf(input) as TemplateCreateInput));
    },
    async list(workspaceId: string, paging: ListPaging): Promise<ResendList<ResendTemplateSummary>> {
      return listPage((await templates.list(workspaceId, ALL)).templates.map(summaryOf), paging);
    },
    async get(workspaceId: string, idOrAlias: string): Promise<ResendTemplate> {
      return templateOf(await templates.get(workspaceId, idOrAlias));
    },
    async update(workspaceId: string, idOrAlias: string, input: ResendTemplateInput) {
      return reference(await templates.update(workspaceId, idOrAlias, contentOf(input)));
    },
    async publish(workspaceId: string, idOrAlias: string) {
      return reference(await templates.publish(workspaceId, idOrAlias));
    },
    async duplicate(workspaceId: string, idOrAlias: string) {
      return reference(await templates.duplicate(workspaceId, idOrAlias));
    },
    async remove(workspaceId: string, idOrAlias: string) {
      const removed = await templates.remove(workspaceId, idOrAlias);
      return { object: 'template' as const, id: removed.id, deleted: true };
    },
  };
}
