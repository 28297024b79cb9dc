import { useId, useState, type FormEvent } from 'react';
import { Field } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { splitError } from '../../components/errors';
import { api } from '../../lib/api';
import { useResource } from '../../lib/use-resource';

interface SendResult {
  message_id: string;
  status: 'sent' | 'suppressed' | 'failed';
  error?: string;
}

/** The body fields of POST /v1/send the server's errors can name (`to[0] must be …` counts as `to`). */
const FIELDS = ['to', 'subject', 'text'];

/**
 * A test e-mail from one of the domains mail may come from now (verified, or
 * the sandbox's), sent through the dashboard's own send route; the caller
 * opens its message once it is accepted. Closed until asked for.
 */
export function SendTestForm({ workspaceId, onSent }: { workspaceId: string; onSent: (messageId: string) => void }) {
  const titleId = useId();
  const { data: domains } = useResource<string[]>(`/workspaces/${workspaceId}/sender-domains`);
  const [form, setForm] = useState({ local: 'test', domain: '', to: '', subject: 'A test from Mailroom', text: 'It works.' });
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const domain = form.domain || domains?.[0] || '';
  const errors = splitError(error?.replace(/^to\[\d+\]/, 'to'), FIELDS);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body = { from_email: `${form.local.trim()}@${domain}`, to: [form.to.trim()], subject: form.subject, text: form.text };
      const sent = await api<SendResult>('POST', `/workspaces/${workspaceId}/send`, body);
      if (sent.status === 'failed') setError(sent.error ?? 'The e-mail could not be sent');
      else onSent(sent.message_id);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <details className="card wide send-test">
      <summary id={titleId}>Send a test e-mail</summary>
      {domains && domains.length === 0 ? (
        <p className="muted">No domain can send yet: add one under Domains and verify it.</p>
      ) : (
        <form onSubmit={submit} aria-labelledby={titleId}>
          <FormError message={errors.form} />
          <div className="sender-row">
            <Field label="From" value={form.local} onChange={(e) => setForm({ ...form, local: e.target.value })} required />
            <span aria-hidden="true" className="at">
              @
            </span>
            <div className="field">
              <label htmlFor={`${titleId}-domain`}>Domain</label>
              <select id={`${titleId}-domain`} value={domain} onChange={(e) => setForm({ ...form, domain: e.target.value })}>
                {(domains ?? []).map((d) => (
                  <option key={d}>{d}</option>
                ))}
              </select>
            </div>
          </div>
          <Field label="To" type="email" value={form.to} onChange={(e) => setForm({ ...form, to: e.target.value })} error={errors.field.to} required placeholder="you@example.com" />
          <Field label="Subject" value={form.subject} onChange={(e) => setForm({ ...form, subject: e.target.value })} error={errors.field.subject} />
          <Field label="Text" value={form.text} onChange={(e) => setForm({ ...form, text: e.target.value })} error={errors.field.text} />
          <button type="submit" className="primary" disabled={busy || !domain}>
            {busy ? 'Sending…' : 'Send test e-mail'}
          </button>
        </form>
      )}
    </details>
  );
}
