import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import { newId, nowIso } from '../lib/ids.js';
import type { LogEntryRow } from '../logs/index.js';
import { SenderDomainChangedError, type AcceptedSend, type AcceptedSendWriter } from './acceptance/accepted-sends.js';
import { createRecentCache } from '../lib/recent-cache.js';
import { ValidationError } from '../lib/errors.js';
import { ATTACHMENT_LIMIT, attachmentRows, MAX_ATTACHMENT_BYTES, megabytes } from './attachments/attachment-rules.js';
import type { Store } from '../db/store.js';
import { eventAbout, type MessageEvent } from '../events/index.js';
import { domainOf } from '../lib/email-address.js';
import { tagsJson } from '../lib/tags.js';
import { parseSendRequest, type SendInput, type SendRequest } from './send-request.js';
import { applyTemplate, type RenderTemplateForSend } from './template-send.js';
import { checkKeyDomain, checkSenderDomain, sendableDomains } from '../domains/index.js';
import type { Metrics, SendWay } from '../observability/index.js';
import type { RecipientLimit } from './recipient-limit.js';
import type { SendingKey } from '../lib/key-identity.js';
export type { SendingKey };

/** The most sends one POST /v1/send/batch may carry (DESIGN.md, "Send extensions"). */
export const MAX_BATCH_SENDS = 100;


export interface SendResult {
  message_id: string;
  status: 'sent' | 'suppressed' | 'failed';
  /** Present when status is `failed`. */
  error?: string;
}

export interface SendServiceOptions {
  /** Hears of every send accepted with someone to deliver to, once it is durable. */
  onAccepted?: () => void;
  metrics?: Pick<Metrics, 'sendsAnswered'>;
  /** The workspace's recipients per minute (sending/recipient-limit.ts); without it, none. */
  recipientLimit?: RecipientLimit;
  /**
   * Makes the renderer of a request's templates (templates/, handed in by composition/): one per request, so a
   * batch looks each template up once. Without it, a send naming one is refused.
   */
  templateRenderer?: () => RenderTemplateForSend;
}

export function createSendService(
  store: Store,
  writer: AcceptedSendWriter,
  config: Pick<Config, 'provider' | 'smtpUtf8'>,
  { onAccepted, metrics, recipientLimit, templateRenderer }: SendServiceOptions = {},
) {
  // A non-ASCII local part needs SMTPUTF8 on the way out: the sandbox keeps mail here, a relay must be declared to take it.
  const mailboxOptions = { utf8LocalPart: config.provider === 'sandbox' || (config.provider === 'smtp' && config.smtpUtf8) };
  // Sender domains found verified lately, by workspace and name: their row's id and tracking switches
  // (recent-cache.ts). A single send takes its domain from here, and the write checks it is still verified
  // (AcceptedSend.senderDomainId); a switch changed applies to sends accepted from RECENT_MS later.
  const verifiedDomains = createRecentCache<{ id: string; tracking: DomainTracking }>();

  /** Why `domain` may not send for the workspace now (null: it may), and the id of its row when memory said so. */
  /** The send's rules, after its template (if any) is rendered into it: nothing is written before both passed. */
  async function parse(workspaceId: string, input: SendInput, renderTemplate?: RenderTemplateForSend): Promise<SendRequest> {
    // A renderer is made only for a send that names a template: most sends do not, and pay nothing for it.
    const { input: complete, template } = await applyTemplate(workspaceId, input, input.template ? (renderTemplate ?? templateRenderer?.()) : undefined);
    const request = parseSendRequest(complete, mailboxOptions);
    if (template) request.template = template;
    return request;
  }

  async function senderDomainOf(workspaceId: string, domain: string, fromMemory: boolean): Promise<SenderDomainState> {
    const cacheKey = `${workspaceId}\0${domain}`;
    const remembered = fromMemory ? verifiedDomains.get(cacheKey, Date.now()) : undefined;
    if (remembered) return { problem: null, rememberedId: remembered.id, tracking: remembered.tracking };
    const check = await checkSenderDomain(store.domains, config, workspaceId, domain);
    if (check.kind !== 'verified') return { problem: check.kind === 'refused' ? check.problem : null, tracking: NO_TRACKING };
    const tracking = { opens: check.row.open_tracking === 1, clicks: check.row.click_tracking === 1 };
    verifiedDomains.set(cacheKey, { id: check.row.id, tracking }, Date.now());
    return { problem: null, tracking };
  }

  /** One send checked and written; the sender domain from memory when `fromMemory`. */
  async function acceptOne(workspaceId: string, request: SendRequest, key: SendingKey | null, fromMemory: boolean): Promise<SendResult> {
    const sender = await senderDomainOf(workspaceId, domainOf(request.from.address), fromMemory);
    const prepared = prepareSend(workspaceId, request, sender, key, { senderDomainId: sender.rememberedId });
    return settle(prepared, await writer.write(prepared.send));
  }

  /**
   * Runs `write` once `requests`' recipients are taken from the workspace's budget, which refuses the
   * whole request before anything is written; recipients of a request that is then not written (the
   * store down, the key deleted meanwhile) are given back, so its retry is not counted twice.
   */
  async function withinRecipientLimit<T>(workspaceId: string, requests: SendRequest[], write: () => Promise<T>): Promise<T> {
    if (!recipientLimit) return write();
    const recipients = requests.reduce((sum, request) => sum + request.to.length + request.cc.length + request.bcc.length, 0);
    const taken = await recipientLimit.take(workspaceId, recipients);
    try {
      return await write();
    } catch (error) {
      // The refusal answers as it is; should the counters be away too, the recipients stay counted.
      await taken.giveBack().catch(() => {});
      throw error;
    }
  }

  return {
    /** The domains this workspace may send from now (sender-domain.ts). */
    senderDomains: (workspaceId: string) => sendableDomains(store.domains, config, workspaceId),

    /**
     * Validates a send and records it durably before answering: the message, one
     * `send` log entry per recipient and, if anyone is to receive it, the outbox
     * row the delivery worker claims, all in one transaction (shared with the
     * sends accepted at the same moment, see accepted-send-writer.ts).
     * `key`: the caller's API key (null: the dashboard's own sends); a send from a domain the key may not
     * send from is refused with 403 before anything is recorded.
     * `way`: how the send came in, for the metrics.
     */
    async accept(workspaceId: string, input: SendInput, key: SendingKey | null = null, way: SendWay = 'http'): Promise<SendResult> {
      const request = await parse(workspaceId, input);
      if (key?.domainId) await checkKeyDomain(store.domains, workspaceId, key.domainId, domainOf(request.from.address));
      const result = await withinRecipientLimit(workspaceId, [request], async () => {
        try {
          return await acceptOne(workspaceId, request, key, true);
        } catch (error) {
          // The domain memory said verified no longer is: read again, the send is written as what it is now (`failed`, with why).
          if (!(error instanceof SenderDomainChangedError)) throw error;
          return acceptOne(workspaceId, request, key, false);
        }
      });
      metrics?.sendsAnswered(way, [result.status]);
      return result;
    },

    /**
     * POST /v1/send/batch: every item is checked (parsed, then the key's
     * domain) before anything is written, so an invalid item answers 400 naming
     * its index (`[57].to must …`) and nothing is recorded. An unverified
     * sender domain is not invalid: that item is written and answers `failed`,
     * as /v1/send does. The items' rows are committed in one transaction
     * (AcceptedSend.group). Results in request order.
     */
    async acceptBatch(workspaceId: string, inputs: SendInput[], key: SendingKey | null = null, way: SendWay = 'batch'): Promise<SendResult[]> {
      if (inputs.length < 1 || inputs.length > MAX_BATCH_SENDS) {
        throw new ValidationError(`The request body must be an array of 1 to ${MAX_BATCH_SENDS} sends (got ${inputs.length})`);
      }
      const requests: SendRequest[] = [];
      const renderTemplate = templateRenderer?.();
      for (const [index, input] of inputs.entries()) {
        try {
          requests.push(await parse(workspaceId, input, renderTemplate));
        } catch (error) {
          if (error instanceof ValidationError) throw new ValidationError(`[${index}].${error.message}`);
          throw error;
        }
      }
      // A batch carries no more attachment bytes than one send may: its body limit is /v1/send's (docs/sending.md, "Batch sends").
      const attachmentBytes = requests.reduce((sum, request) => sum + request.attachmentBytes, 0);
      if (attachmentBytes > MAX_ATTACHMENT_BYTES) {
        throw new ValidationError(`attachments of a batch must be at most ${ATTACHMENT_LIMIT} together after decoding (got ${megabytes(attachmentBytes)})`);
      }
      // A batch usually comes from one or two domains: each is looked up once.
      const domains = new Map<string, Promise<SenderDomainState>>();
      const problemOf = (domain: string) => {
        let problem = domains.get(domain);
        if (!problem) {
          problem = (async () => {
            if (key?.domainId) await checkKeyDomain(store.domains, workspaceId, key.domainId, domain);
            return senderDomainOf(workspaceId, domain, false);
          })();
          domains.set(domain, problem);
        }
        return problem;
      };
      const senders: SenderDomainState[] = [];
      for (const request of requests) senders.push(await problemOf(domainOf(request.from.address)));

      const group = randomUUID();
      const prepared = requests.map((request, i) => prepareSend(workspaceId, request, senders[i]!, key, { group }));
      // Written in one turn, so all join one writer batch; the group keeps them together should it fail.
      const written = await withinRecipientLimit(workspaceId, requests, () => Promise.all(prepared.map((p) => writer.write(p.send))));
      const results = prepared.map((p, i) => settle(p, written[i]!));
      metrics?.sendsAnswered(way, results.map((r) => r.status));
      return results;
    },
  };

  function settle({ send, problem }: PreparedSend, { queued }: { queued: boolean }): SendResult {
    if (queued) onAccepted?.();
    if (problem) return { message_id: send.message.id, status: 'failed', error: problem };
    return { message_id: send.message.id, status: queued ? 'sent' : 'suppressed' };
  }
}

/** A sender domain's tracking switches (domains.open_tracking, click_tracking). */
interface DomainTracking {
  opens: boolean;
  clicks: boolean;
}
const NO_TRACKING: DomainTracking = { opens: false, clicks: false };

/** What the sender domain says of a send: why it may not send (null: it may), its row's id when memory said so, and its tracking switches. */
interface SenderDomainState {
  problem: string | null;
  rememberedId?: string;
  tracking: DomainTracking;
}

interface PreparedSend {
  send: AcceptedSend;
  /** Why the sender domain may not send (the send is written failed), or null. */
  problem: string | null;
}

/** The rows of one accepted send, built before anything is written. */
function prepareSend(
  workspaceId: string,
  request: SendRequest,
  sender: Pick<SenderDomainState, 'problem' | 'tracking'>,
  key: SendingKey | null,
  { group, senderDomainId }: Pick<AcceptedSend, 'group' | 'senderDomainId'> = {},
): PreparedSend {
  const domainProblem = sender.problem;
  const messageId = newId('msg');
  const now = nowIso();
  const events: MessageEvent[] = [];
  // On the message and, for the log's pages and the tag filter's rows, on each of its entries.
  const tags = tagsJson(request.tags);
  // Written `sent`, unless the sender may not send; the writer holds back suppressed recipients (holdBackSuppressed).
  // Cc and Bcc recipients get `send` entries like To's: each is a delivery of its own.
  const entries: LogEntryRow[] = [...request.to, ...request.cc, ...request.bcc].map((recipient) => {
    const entry: LogEntryRow = {
      id: newId('log'),
      workspace_id: workspaceId,
      message_id: messageId,
      type: 'send',
      status: domainProblem ? 'failed' : 'sent',
      recipient: recipient.address,
      from_email: request.from.address,
      subject: request.subject,
      error: domainProblem,
      tags,
      created_at: now,
      updated_at: now,
    };
    if (domainProblem) events.push({ ...eventAbout(entry, 'failed', now), error: domainProblem });
    return entry;
  });
  const send: AcceptedSend = {
    message: {
      id: messageId,
      workspace_id: workspaceId,
      from_name: request.from.name,
      from_address: request.from.address,
      reply_to: request.replyTo.length > 0 ? JSON.stringify(request.replyTo) : null,
      subject: request.subject,
      html: request.html,
      text: request.text,
      recipients: JSON.stringify(request.to),
      cc: request.cc.length > 0 ? JSON.stringify(request.cc) : null,
      bcc: request.bcc.length > 0 ? JSON.stringify(request.bcc) : null,
      headers: request.headers.length > 0 ? JSON.stringify(request.headers) : null,
      tags,
      scheduled_at: request.scheduledAt,
      created_at: now,
      content_expired_at: null,
      template_id: request.template?.template_id ?? null,
      template_version: request.template?.version ?? null,
      // The send's own choice, else its domain's, settled now: a switch changed later leaves this mail as it was.
      track_opens: (request.trackOpens ?? sender.tracking.opens) ? 1 : 0,
      track_clicks: (request.trackClicks ?? sender.tracking.clicks) ? 1 : 0,
    },
    entries,
    attachments: attachmentRows(messageId, workspaceId, request.attachments),
    job: domainProblem
      ? null
      : {
          message_id: messageId,
          workspace_id: workspaceId,
          state: 'pending',
          // A scheduled send is an ordinary job not due before its time: the worker's claim skips it until then.
          available_at: request.scheduledAt ?? now,
          lease_owner: null,
          lease_expires_at: null,
          last_error: null,
          created_at: now,
          updated_at: now,
        },
    events,
    ...(key ? { keyId: key.id } : {}),
    ...(senderDomainId === undefined ? {} : { senderDomainId }),
    ...(group === undefined ? {} : { group }),
  };
  return { send, problem: domainProblem };
}
