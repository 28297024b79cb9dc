import type { Config } from '../config.js';
import type { MessageEventType } from '../db/schema.js';
import { NotFoundError, ValidationError } from '../lib/errors.js';
import { newId, nowIso } from '../lib/ids.js';
import type { Store } from '../db/store.js';
import type { WebhookDeliverySummaryRow, WebhookRow } from './webhooks-repository.js';
import { createSecretBox, SecretBoxError } from '../lib/secret-box.js';
import { resolvePublicTarget, type HostResolver } from './url-guard.js';
import { newWebhookSecret, WEBHOOK_SECRET_PREFIX } from './webhook-signature.js';
import { testDelivery } from './webhook-test-event.js';

/** The events an endpoint may subscribe to (SPEC.md §6.1), in the order the API lists them. */
export const WEBHOOK_EVENT_TYPES = ['delivered', 'bounced', 'complained', 'suppressed', 'failed'] as const satisfies readonly MessageEventType[];
/**
 * Events beside SPEC.md's, posted only to endpoints that name them (leaving `events` out subscribes to SPEC.md's
 * alone): a tracked message's opens and clicks (docs/tracking.md), and Mailroom's own upstreams going down and
 * coming back (docs/upstreams.md#seen-and-told).
 */
export const OPT_IN_EVENT_TYPES = ['opened', 'clicked', 'upstream.down', 'upstream.up'] as const;
/** Every type an endpoint may name, in the order the API lists them. */
export const SUBSCRIBABLE_EVENT_TYPES = [...WEBHOOK_EVENT_TYPES, ...OPT_IN_EVENT_TYPES] as const;
export type WebhookEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];

export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** Deliveries shown with an endpoint by GET /v1/webhooks/{id}. */
export const RECENT_DELIVERIES_SHOWN = 20;
/** The dashboard's success rate of an endpoint is over this many of its latest finished deliveries. */
export const SUCCESS_RATE_WINDOW = 100;

/** An endpoint as listed: the secret only masked. */
export interface WebhookView {
  id: string;
  url: string;
  events: WebhookEventType[];
  /**
   * `whsec_` + the first and last four characters: enough to tell secrets
   * apart, nothing to sign with. Null when the stored secret cannot be read
   * with this MAILROOM_SECRET_KEY (rotate it to set a new one).
   */
  masked_secret: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveryView {
  /** Also the `webhook-id` header of every post of it. */
  id: string;
  event_id: string;
  event_type: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDetail extends WebhookView {
  /** The latest deliveries, newest first, at most RECENT_DELIVERIES_SHOWN. */
  deliveries: WebhookDeliveryView[];
}

/** A delivery as the dashboard shows it: when it is posted next, while it is pending. */
export interface ScheduledDeliveryView extends WebhookDeliveryView {
  next_attempt_at: string | null;
}

export interface ScheduledWebhookDetail extends WebhookView {
  deliveries: ScheduledDeliveryView[];
}

/** An endpoint as the dashboard lists it: how its latest finished deliveries (at most SUCCESS_RATE_WINDOW) went. */
export interface WebhookWithSuccessRate extends WebhookView {
  recent_deliveries: { finished: number; delivered: number };
  /** delivered / finished, from 0 to 1; null before any delivery finished. */
  success_rate: number | null;
}

/** The answer to creation: the only answer besides rotation that carries the full secret. */
export interface WebhookCreated {
  id: string;
  url: string;
  events: WebhookEventType[];
  secret: string;
  created_at: string;
}

/** The body of POST /v1/webhooks once its JSON types are checked. */
export interface WebhookInput {
  url: string;
  events?: string[] | undefined;
}

const notFound = () => new NotFoundError('Webhook not found');
const deliveryNotFound = () => new NotFoundError('Webhook delivery not found');

function maskSecret(secret: string): string {
  const key = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  return `${WEBHOOK_SECRET_PREFIX}${key.slice(0, 4)}${'*'.repeat(8)}${key.slice(-4)}`;
}

/** The subscribed events as stored (a JSON array), in the API's order. */
function eventsOf(row: Pick<WebhookRow, 'events'>): WebhookEventType[] {
  const stored = new Set(JSON.parse(row.events) as string[]);
  return SUBSCRIBABLE_EVENT_TYPES.filter((type) => stored.has(type));
}

/** `events` of a request: a non-empty subset of the event types, duplicates dropped; all of them when left out. */
function eventsOrThrow(events: string[] | undefined): WebhookEventType[] {
  if (events === undefined) return [...WEBHOOK_EVENT_TYPES];
  if (events.length === 0) throw new ValidationError(`events must not be empty: leave it out to receive every event`);
  const unknown = events.find((e) => !(SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(e));
  if (unknown !== undefined) throw new ValidationError(`events must contain only ${SUBSCRIBABLE_EVENT_TYPES.join(', ')} (got ${JSON.stringify(unknown)})`);
  return SUBSCRIBABLE_EVENT_TYPES.filter((type) => events.includes(type));
}

function deliveryView(row: WebhookDeliverySummaryRow): WebhookDeliveryView {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    state: row.state,
    attempts: Number(row.attempts),
    last_status: row.last_status === null ? null : Number(row.last_status),
    last_error: row.last_error,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function scheduledView(row: WebhookDeliverySummaryRow): ScheduledDeliveryView {
  return { ...deliveryView(row), next_attempt_at: row.state === 'pending' ? row.available_at : null };
}

/**
 * The signing secret (`whsec_…`) of an endpoint row, decrypted when it is
 * stored sealed: what the dispatcher signs with. Throws SecretBoxError (a
 * message without the secret) when MAILROOM_SECRET_KEY is missing or wrong.
 */
export function webhookSigningSecret(row: Pick<WebhookRow, 'secret'>, config: Pick<Config, 'secretKey'>): string {
  return createSecretBox(config.secretKey).open(row.secret);
}

export interface WebhookServiceOptions {
  /** How host names are resolved for the SSRF check; the system's resolver by default. */
  resolveHost?: HostResolver | undefined;
}

export function createWebhookService(store: Store, config: Pick<Config, 'secretKey' | 'webhooks'>, options: WebhookServiceOptions = {}) {
  const box = createSecretBox(config.secretKey);
  /** A secret sealed under another key (or none) must not make the list unreadable: it shows as null, and rotation mends it. */
  const maskedSecretOf = (row: WebhookRow): string | null => {
    try {
      return maskSecret(box.open(row.secret));
    } catch (error) {
      if (error instanceof SecretBoxError) return null;
      throw error;
    }
  };
  const view = (row: WebhookRow): WebhookView => ({
    id: row.id,
    url: row.url,
    events: eventsOf(row),
    masked_secret: maskedSecretOf(row),
    created_at: row.created_at,
    updated_at: row.updated_at,
  });

  async function findOrThrow(workspaceId: string, id: string): Promise<WebhookRow> {
    const row = await store.webhooks.findById(workspaceId, id);
    if (!row) throw notFound();
    return row;
  }

  return {
    /**
     * Adds an endpoint with a fresh secret. The URL must be http(s) and, unless
     * WEBHOOK_ALLOW_PRIVATE, resolve to public addresses only (checked again at
     * every delivery).
     */
    async create(workspaceId: string, input: WebhookInput): Promise<WebhookCreated> {
      const events = eventsOrThrow(input.events);
      const target = await resolvePublicTarget(input.url, config.webhooks.allowPrivate, options.resolveHost);
      const secret = newWebhookSecret();
      const now = nowIso();
      const row: WebhookRow = {
        id: newId('wh'),
        workspace_id: workspaceId,
        url: target.url.href,
        events: JSON.stringify(events),
        secret: box.seal(secret),
        created_at: now,
        updated_at: now,
      };
      await store.webhooks.insert(row);
      return { id: row.id, url: row.url, events, secret, created_at: now };
    },

    async list(workspaceId: string): Promise<WebhookView[]> {
      return (await store.webhooks.listByWorkspace(workspaceId)).map(view);
    },

    /** The list with each endpoint's recent success rate (the dashboard's; /v1's list stays as it was). */
    async listWithSuccessRates(workspaceId: string): Promise<WebhookWithSuccessRate[]> {
      const rows = await store.webhooks.listByWorkspaceWithOutcomes(workspaceId, SUCCESS_RATE_WINDOW);
      return rows.map((row) => {
        const finished = Number(row.finished);
        const delivered = Number(row.delivered);
        return { ...view(row), recent_deliveries: { finished, delivered }, success_rate: finished === 0 ? null : delivered / finished };
      });
    },

    async get(workspaceId: string, id: string): Promise<WebhookDetail> {
      const row = await findOrThrow(workspaceId, id);
      const deliveries = await store.webhooks.listRecentDeliveries(row.id, RECENT_DELIVERIES_SHOWN);
      return { ...view(row), deliveries: deliveries.map(deliveryView) };
    },

    /** get, with each pending delivery's next attempt (the dashboard's; /v1's answer stays as it was). */
    async getWithSchedule(workspaceId: string, id: string): Promise<ScheduledWebhookDetail> {
      const row = await findOrThrow(workspaceId, id);
      const deliveries = await store.webhooks.listRecentDeliveries(row.id, RECENT_DELIVERIES_SHOWN);
      return { ...view(row), deliveries: deliveries.map(scheduledView) };
    },

    /**
     * Queues a signed `test` event for this one endpoint, whatever it subscribes
     * to: a delivery like any other (posted by the dispatcher, retried, every
     * attempt recorded, listed with the endpoint's deliveries).
     */
    async sendTest(workspaceId: string, id: string): Promise<ScheduledDeliveryView> {
      const row = await findOrThrow(workspaceId, id);
      const delivery = testDelivery(row, nowIso());
      await store.webhookDeliveries.insertMany([delivery]);
      return scheduledView({ ...delivery, attempts: 0 });
    },

    /** Deletes the endpoint with its deliveries: nothing more is posted to it. */
    async remove(workspaceId: string, id: string): Promise<{ id: string; deleted: true }> {
      if (!(await store.webhooks.delete(workspaceId, id))) throw notFound();
      return { id, deleted: true };
    },

    /** A new secret, shown this once; the old one signs nothing from now on, retries of earlier deliveries included. */
    async rotateSecret(workspaceId: string, id: string): Promise<{ id: string; secret: string }> {
      const secret = newWebhookSecret();
      if (!(await store.webhooks.replaceSecret(workspaceId, id, box.seal(secret), nowIso()))) throw notFound();
      return { id, secret };
    },

    /** Makes one delivery due now, whatever its state, keeping its attempts: the dispatcher posts it next. */
    async retryDelivery(workspaceId: string, id: string, deliveryId: string): Promise<WebhookDeliveryView> {
      const row = await findOrThrow(workspaceId, id);
      const delivery = await store.webhooks.makeDeliveryDueNow(row.id, deliveryId, nowIso());
      if (!delivery) throw deliveryNotFound();
      return deliveryView(delivery);
    },
  };
}
