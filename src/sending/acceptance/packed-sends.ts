import type { MessagesTable } from '../../db/schema.js';
import type { LogEntryRow } from '../../logs/index.js';
import type { AcceptedSend } from './accepted-sends.js';

/**
 * The form in which an accepted send crosses to the SQLite writer thread.
 *
 * Structured clone writes every property name of every object, and an
 * ordinary send is a message, a log entry per recipient and an outbox row
 * that repeat one another (the message's id, workspace, sender, subject, tags
 * and timestamp appear up to six times): about 1,100 bytes to serialise on the
 * HTTP thread and to rebuild on the writer's. Packed, it is a flat array of the
 * values that differ, about a third of that, and the writer thread rebuilds
 * the rows. A send that is not of that ordinary shape (attachments, events,
 * an entry or job that differs from what the message implies) crosses as it
 * is: an object, told apart from a packed send by not being an array.
 */
export type WireSend = AcceptedSend | PackedSend;
type PackedSend = unknown[];

const MESSAGE_FIELDS = [
  'id', 'workspace_id', 'from_name', 'from_address', 'reply_to', 'subject', 'html', 'text',
  'recipients', 'cc', 'bcc', 'headers', 'tags', 'scheduled_at', 'created_at', 'content_expired_at', 'track_opens', 'track_clicks',
] as const satisfies readonly (keyof MessagesTable)[];
/** A templated send's columns: such a send crosses as it is (isPlain), so a packed one has them null. */
type TemplateFields = 'template_id' | 'template_version';
// A column added to messages and not here fails to compile, rather than being dropped on the way.
const everyMessageField: [Exclude<keyof MessagesTable, (typeof MESSAGE_FIELDS)[number] | TemplateFields>] extends [never] ? true : never = true;
void everyMessageField;

// After the message's fields: keyId, senderDomainId, group, the job's available_at (null: no job; the job is keyed by the message).
const HEAD = MESSAGE_FIELDS.length + 4;
// Per log entry: id, status, recipient, error.
const ENTRY_WIDTH = 4;

/** An entry whose every other column is what the message implies. */
function entryIsPlain(entry: LogEntryRow, m: MessagesTable): boolean {
  return (
    entry.workspace_id === m.workspace_id && entry.message_id === m.id && entry.type === 'send' && entry.from_email === m.from_address &&
    entry.subject === m.subject && entry.tags === m.tags && entry.created_at === m.created_at && entry.updated_at === m.created_at
  );
}

function isPlain(send: AcceptedSend): boolean {
  const m = send.message;
  if (send.events.length > 0 || (send.attachments !== undefined && send.attachments.length > 0) || m.template_id) return false;
  const job = send.job;
  if (
    job &&
    (job.message_id !== m.id || job.workspace_id !== m.workspace_id || job.state !== 'pending' || job.lease_owner !== null ||
      job.lease_expires_at !== null || job.last_error !== null || job.created_at !== m.created_at || job.updated_at !== m.created_at)
  ) {
    return false;
  }
  for (const entry of send.entries) if (!entryIsPlain(entry, m)) return false;
  return true;
}

/** The send as it crosses to the writer thread: packed when it is of the ordinary shape, else as it is. */
export function packSend(send: AcceptedSend): WireSend {
  if (!isPlain(send)) return send;
  const m = send.message;
  const packed: PackedSend = [];
  for (const field of MESSAGE_FIELDS) packed.push(m[field]);
  packed.push(send.keyId ?? null, send.senderDomainId ?? null, send.group ?? null, send.job?.available_at ?? null);
  for (const entry of send.entries) packed.push(entry.id, entry.status, entry.recipient, entry.error);
  // Told apart from an empty `attachments` only for unpackSend to give back what it was given.
  packed.push(send.attachments === undefined ? 0 : 1);
  return packed;
}

/**
 * The send packSend was given, rebuilt on the writer thread. The entry and job literals below name every
 * column of their tables: a required column added to either fails to compile here.
 */
export function unpackSend(wire: WireSend): AcceptedSend {
  if (!Array.isArray(wire)) return wire;
  const message = {} as Record<string, unknown>;
  MESSAGE_FIELDS.forEach((field, i) => (message[field] = wire[i]));
  message.template_id = null;
  message.template_version = null;
  const m = message as unknown as MessagesTable;
  const [keyId, senderDomainId, group, availableAt] = wire.slice(MESSAGE_FIELDS.length, HEAD) as [string | null, string | null, string | null, string | null];
  const entries: LogEntryRow[] = [];
  const end = wire.length - 1;
  for (let i = HEAD; i < end; i += ENTRY_WIDTH) {
    entries.push({
      id: wire[i] as string, workspace_id: m.workspace_id, message_id: m.id, type: 'send', status: wire[i + 1] as LogEntryRow['status'],
      recipient: wire[i + 2] as string, from_email: m.from_address, subject: m.subject, error: wire[i + 3] as string | null, tags: m.tags,
      created_at: m.created_at, updated_at: m.created_at,
    });
  }
  return {
    message: m,
    entries,
    ...(wire[end] === 1 ? { attachments: [] } : {}),
    job:
      availableAt === null
        ? null
        : {
            message_id: m.id, workspace_id: m.workspace_id, state: 'pending', available_at: availableAt,
            lease_owner: null, lease_expires_at: null, last_error: null, created_at: m.created_at, updated_at: m.created_at,
          },
    events: [],
    ...(keyId === null ? {} : { keyId }),
    ...(senderDomainId === null ? {} : { senderDomainId }),
    ...(group === null ? {} : { group }),
  };
}
