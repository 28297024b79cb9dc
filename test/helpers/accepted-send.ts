import { newId, nowIso } from '../../src/lib/ids.js';
import type { AcceptedSend } from '../../src/sending/acceptance/accepted-sends.js';
import type { Repositories } from '../../src/db/store.js';

/** What the send service hands a writer for one send of `recipients` recipients. */
export function acceptedSend(workspaceId: string, recipients: number, messageId = newId('msg')): AcceptedSend {
  const now = nowIso();
  const base = { workspace_id: workspaceId, message_id: messageId, from_email: 'a@sandbox.mailroom.test', subject: 's', error: null, tags: null, created_at: now, updated_at: now };
  const addresses = Array.from({ length: recipients }, (_, i) => `r${i}@example.com`);
  return {
    message: {
      id: messageId, workspace_id: workspaceId, from_name: '', from_address: 'a@sandbox.mailroom.test', reply_to: null, subject: 's', html: null, text: 't',
      recipients: JSON.stringify(addresses.map((address) => ({ name: '', address }))), cc: null, bcc: null, headers: null, tags: null, scheduled_at: null, content_expired_at: null, template_id: null, template_version: null, track_opens: 0, track_clicks: 0, created_at: now,
    },
    entries: addresses.map((recipient) => ({ ...base, id: newId('log'), type: 'send' as const, status: 'sent' as const, recipient })),
    job: { message_id: messageId, workspace_id: workspaceId, state: 'pending', available_at: now, lease_owner: null, lease_expires_at: null, last_error: null, created_at: now, updated_at: now },
    events: [],
  };
}

/** Inserts the sends' messages, outbox rows, log entries and their counts as the send writer does: in one statement on PostgreSQL (insertTogether). */
export function insertAcceptedRows(repos: Repositories, sends: AcceptedSend[]): Promise<void> {
  const parts = repos.messages.acceptedParts(sends.map((s) => s.message), sends.flatMap((s) => (s.job ? [s.job] : [])));
  return repos.logs.insertMany(sends.flatMap((s) => s.entries), parts, { lastCount: true });
}
