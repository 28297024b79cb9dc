import { useRef, useState, type KeyboardEvent } from 'react';
import { FormError } from '../../components/FormError';
import { useResource } from '../../lib/use-resource';
import { when, type MessageContent } from './types';

type Tab = 'html' | 'text' | 'raw';
const TABS: Array<{ tab: Tab; label: string }> = [
  { tab: 'html', label: 'HTML' },
  { tab: 'text', label: 'Text' },
  { tab: 'raw', label: 'Raw MIME' },
];

interface MessageBodyProps {
  /** The message's path in the dashboard API. */
  path: string;
  hasHtml: boolean;
}

/**
 * The HTML body in a sandboxed frame, served by the dashboard API with a
 * policy of its own (no script, nothing remote until asked: see
 * src/dashboard/mail-html-frame.ts), the text part and the MIME as handed
 * over, one tab each.
 */
export function MessageBody({ path, hasHtml }: MessageBodyProps) {
  const [tab, setTab] = useState<Tab>(hasHtml ? 'html' : 'text');
  const [remote, setRemote] = useState(false);
  const { data: content, error } = useResource<MessageContent>(`${path}/content`);
  const tabs = useRef<Array<HTMLButtonElement | null>>([]);

  // Arrow keys move along the tabs, as a tab list's keyboard pattern has it.
  function onKeyDown(e: KeyboardEvent) {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    const next = TABS[(TABS.findIndex((t) => t.tab === tab) + step + TABS.length) % TABS.length]!;
    setTab(next.tab);
    tabs.current[TABS.indexOf(next)]?.focus();
  }

  return (
    <section className="card wide" aria-labelledby="body-title">
      <h2 id="body-title">Content</h2>
      <FormError message={error} />
      <div className="tabs" role="tablist" aria-label="Parts of the message" onKeyDown={onKeyDown}>
        {TABS.map((t, i) => (
          <button
            key={t.tab}
            ref={(el) => void (tabs.current[i] = el)}
            type="button"
            role="tab"
            id={`tab-${t.tab}`}
            aria-selected={tab === t.tab}
            aria-controls="message-part"
            tabIndex={tab === t.tab ? 0 : -1}
            onClick={() => setTab(t.tab)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div className="tab-panel" role="tabpanel" id="message-part" aria-labelledby={`tab-${tab}`}>
        {tab === 'html' && !hasHtml && <p className="muted">This message has no HTML part.</p>}
        {tab === 'html' && hasHtml && (
          <>
            <div className="action-row remote-row">
              {remote ? (
                <>
                  <span className="muted small">Remote images are shown.</span>
                  <button type="button" className="link" onClick={() => setRemote(false)}>
                    Block them again
                  </button>
                </>
              ) : (
                <>
                  <span className="muted small">Remote images are blocked: loading them tells their servers the message was opened, and from where.</span>
                  <button type="button" className="secondary" onClick={() => setRemote(true)}>
                    Load remote images
                  </button>
                </>
              )}
            </div>
            {/* No allow-* token: nothing in it runs, and it is no origin of the dashboard's. */}
            <iframe className="mail-frame" sandbox="" referrerPolicy="no-referrer" title="The message's HTML body" src={`/dashboard/api${path}/html${remote ? '?remote_images=1' : ''}`} />
          </>
        )}
        {tab === 'text' && content && (content.text === null ? <p className="muted">This message has no text part.</p> : <pre className="mail-source" tabIndex={0}>{content.text}</pre>)}
        {tab === 'raw' && content && content.raw === null && <p className="muted">{content.raw_unavailable_reason}</p>}
        {tab === 'raw' && content?.raw != null && (
          <>
            <div className="action-row remote-row">
              <span className="muted small">The message exactly as it was handed to the provider, DKIM signature included.</span>
              <a className="button-link" href={`/dashboard/api${path}/raw`} download>
                Download .eml
              </a>
            </div>
            <pre className="mail-source raw" tabIndex={0}>
              {content.raw}
            </pre>
          </>
        )}
        {tab !== 'html' && !content && !error && <p className="muted">Loading…</p>}
      </div>
    </section>
  );
}

/** In place of the body once the retention pruner has dropped it (CONTENT_RETENTION_DAYS). */
export function ExpiredContent({ at }: { at: string }) {
  return (
    <section className="card wide" aria-labelledby="body-title">
      <h2 id="body-title">Content</h2>
      <p className="muted">
        Content expired on <time dateTime={at}>{when(at)}</time>. Bodies, attachments and the message as handed over are kept for <code>CONTENT_RETENTION_DAYS</code> days (30 unless
        the operator set otherwise); what happened to each recipient stays until the log expires.
      </p>
    </section>
  );
}
