import { useState } from 'react';
import { CopyButton } from '../../components/CopyButton';
import { FormError } from '../../components/FormError';
import { RoleNote } from '../../components/RoleNote';
import { LiveToggle } from '../../components/LiveToggle';
import { useLive } from '../../lib/live';
import { navigate } from '../../lib/router';
import type { WorkspacePageProps } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { Attachments } from './Attachments';
import { CancelScheduled, isCancelable } from './CancelScheduled';
import { ExpiredContent, MessageBody } from './MessageBody';
import { MessageWebhooks } from './MessageWebhooks';
import { RecipientTimeline } from './RecipientTimeline';
import { byteSize, when, type MessageDetail } from './types';

export interface MessagePageProps extends WorkspacePageProps {
  /** The message's id, as the address names it. */
  id: string;
}

function size(bytes: number | null, contentExpired: boolean): string {
  if (bytes === null) return contentExpired ? 'No longer kept (content expired)' : 'Not built yet';
  return byteSize(bytes);
}

/**
 * One message (`/messages/<id>`, linked from each log entry): who sent it to
 * whom, each recipient's timeline of attempts and events, the webhook
 * deliveries it caused, and its content. Everything from mail is text here;
 * only the HTML body is rendered, in its sandboxed frame.
 */
export function MessagePage({ workspaceId, role, id }: MessagePageProps) {
  const path = `/workspaces/${workspaceId}/messages/${encodeURIComponent(id)}`;
  const { data: message, error, reload } = useResource<MessageDetail>(path);
  // Live: a bounce, a complaint or a webhook retry recorded by any Mailroom process shows within 2 seconds.
  const [live, setLive] = useState(true);
  useLive(reload, live);
  const from = message && (message.from_name ? `${message.from_name} <${message.from_email}>` : message.from_email);

  return (
    <>
      <p className="back">
        <a
          href="/logs"
          onClick={(e) => {
            e.preventDefault();
            navigate('/logs');
          }}
        >
          ← Logs
        </a>
      </p>
      <div className="page-head">
        <h1 className="message-subject">{message ? message.subject : 'Message'}</h1>
        <LiveToggle on={live} onChange={setLive} />
      </div>
      <FormError message={error} />
      {!message && !error && <p className="muted">Loading…</p>}
      {message && (
        <>
          <section className="card wide" aria-labelledby="facts-title">
            <h2 id="facts-title" className="visually-hidden">
              Headers
            </h2>
            <dl className="facts message-facts">
              <dt>From</dt>
              <dd>{from}</dd>
              <dt>To</dt>
              {/* recipients lists To, then Cc, then Bcc (README, "Send fields"): To is what comes before the others. */}
              <dd>{message.recipients.slice(0, message.recipients.length - message.cc.length - message.bcc.length).map((r) => r.to).join(', ')}</dd>
              {message.cc.length > 0 && (
                <>
                  <dt>Cc</dt>
                  <dd>{message.cc.join(', ')}</dd>
                </>
              )}
              {message.bcc.length > 0 && (
                <>
                  <dt>Bcc</dt>
                  <dd>{message.bcc.join(', ')}</dd>
                </>
              )}
              <dt>Reply-To</dt>
              <dd>{message.reply_to ?? <span className="muted">None</span>}</dd>
              <dt>Size</dt>
              <dd>{size(message.size_bytes, message.content_expired_at !== null)}</dd>
              <dt>Created</dt>
              <dd>
                <time dateTime={message.created_at}>{when(message.created_at)}</time>
              </dd>
              {message.scheduled_at && (
                <>
                  <dt>Scheduled</dt>
                  <dd className="scheduled-row">
                    <time dateTime={message.scheduled_at}>{when(message.scheduled_at)}</time>
                    {isCancelable(message) &&
                      (role !== 'viewer' ? <CancelScheduled path={path} onDone={() => void reload()} /> : <RoleNote role={role}>admins and developers can cancel it until then</RoleNote>)}
                  </dd>
                </>
              )}
              {Object.keys(message.tags).length > 0 && (
                <>
                  <dt>Tags</dt>
                  <dd>
                    <ul className="tag-list" aria-label="Tags">
                      {Object.entries(message.tags).map(([name, value]) => (
                        <li key={name} className="badge">
                          <code>{name}</code>: <code>{value}</code>
                        </li>
                      ))}
                    </ul>
                  </dd>
                </>
              )}
              <dt>Message ID</dt>
              <dd className="value-row">
                <code className="record-value">{message.id}</code>
                <CopyButton value={message.id} label="Copy ID" />
              </dd>
            </dl>
          </section>
          <section className="card wide" aria-labelledby="recipients-title">
            <div className="section-head">
              <h2 id="recipients-title">Recipients</h2>
              <button type="button" className="secondary" onClick={() => void reload()}>
                Refresh
              </button>
            </div>
            {message.recipients.map((recipient, i) => (
              <RecipientTimeline key={recipient.to} recipient={recipient} index={i} />
            ))}
          </section>
          <MessageWebhooks workspaceId={workspaceId} deliveries={message.webhook_deliveries} role={role} onRetried={() => void reload()} />
          <Attachments path={path} attachments={message.attachments} contentExpiredAt={message.content_expired_at} />
          {message.content_expired_at ? <ExpiredContent at={message.content_expired_at} /> : <MessageBody path={path} hasHtml={message.has_html} />}
        </>
      )}
    </>
  );
}
