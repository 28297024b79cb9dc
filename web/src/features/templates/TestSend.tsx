import { useId, useState } from 'react';
import { FormError } from '../../components/FormError';
import { api } from '../../lib/api';
import { navigate } from '../../lib/router';
import { useResource } from '../../lib/use-resource';
import type { Rendered } from './types';

interface TestSendProps {
  workspaceId: string;
  /** The template's path in the dashboard API. */
  path: string;
  /** The saved draft's sender, if it has one. */
  from: string | null;
  /** The signed-in user, whom the test goes to. */
  email: string;
  variables: Record<string, string | number>;
}

/**
 * The saved draft, rendered with the preview's values, sent to the signed-in
 * user through the dashboard's send route (the same checks and log as any
 * send): what the preview shows is what arrives, before it is published.
 */
export function TestSend({ workspaceId, path, from, email, variables }: TestSendProps) {
  const id = useId();
  const { data: domains } = useResource<string[]>(`/workspaces/${workspaceId}/sender-domains`);
  const [domain, setDomain] = useState('');
  const [error, setError] = useState<string>();
  const [sent, setSent] = useState<string>();
  const [busy, setBusy] = useState(false);
  const sender = from ?? (domains?.length ? `test@${domain || domains[0]}` : undefined);

  async function send() {
    setBusy(true);
    setError(undefined);
    setSent(undefined);
    try {
      const rendered = await api<Rendered>('POST', `${path}/render`, { variables });
      if (rendered.subject === null) throw new Error('The template has no subject: give it one to send a test.');
      const result = await api<{ message_id: string; status: string; error?: string }>('POST', `/workspaces/${workspaceId}/send`, {
        from_email: sender,
        to: [email],
        subject: rendered.subject,
        html: rendered.html,
        text: rendered.text,
      });
      if (result.status === 'failed') throw new Error(result.error ?? 'The test could not be sent');
      setSent(result.message_id);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Send a test to me</h2>
      <p className="muted small">
        The draft as the preview shows it, to <strong>{email}</strong>
        {from ? <> from {from}</> : null}.
      </p>
      {!from && domains && domains.length === 0 && <p className="muted">No domain can send yet: add one under Domains and verify it.</p>}
      {!from && domains && domains.length > 1 && (
        <div className="field">
          <label htmlFor={`${id}-domain`}>From test@</label>
          <select id={`${id}-domain`} value={domain || domains[0]} onChange={(e) => setDomain(e.target.value)}>
            {domains.map((d) => (
              <option key={d}>{d}</option>
            ))}
          </select>
        </div>
      )}
      <FormError message={error} />
      {sent && (
        <p className="notice" role="status">
          Sent.{' '}
          <a
            href={`/messages/${sent}`}
            onClick={(e) => {
              e.preventDefault();
              navigate(`/messages/${sent}`);
            }}
          >
            Open the message
          </a>
        </p>
      )}
      <button type="button" className="primary" disabled={busy || !sender} onClick={() => void send()}>
        {busy ? 'Sending…' : 'Send a test to me'}
      </button>
    </section>
  );
}
