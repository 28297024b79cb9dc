import { useState, type FormEvent } from 'react';
import { ConfirmButton } from '../../components/ConfirmButton';
import { Field } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { OneFieldForm } from '../../components/OneFieldForm';
import { RoleNote } from '../../components/RoleNote';
import { ApiError, api } from '../../lib/api';
import type { WorkspacePageProps } from '../../lib/session';
import { useResource } from '../../lib/use-resource';

interface Suppression {
  email: string;
  reason: 'hard_bounce' | 'complaint' | 'manual';
  source_message_id: string | null;
  created_at: string;
}

const PAGE = 50;
const REASON: Record<Suppression['reason'], string> = { hard_bounce: 'Hard bounce', complaint: 'Complaint', manual: 'Added by hand' };

/** The addresses mail is not sent to: look one up, list them by reason, add by hand, remove. */
export function SuppressionsPage({ workspaceId, role }: WorkspacePageProps) {
  const canChange = role !== 'viewer';
  const path = `/workspaces/${workspaceId}/suppressions`;
  const [reason, setReason] = useState('');
  const [offset, setOffset] = useState(0);
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<{ email: string; entry: Suppression | null }>();
  const params = new URLSearchParams({ limit: String(PAGE), offset: String(offset), ...(reason ? { reason } : {}) });
  const { data: page, error, setError, reload, change } = useResource<{ entries: Suppression[]; total: number }>(`${path}?${params}`);

  async function search(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    const email = query.trim();
    try {
      setFound({ email, entry: await api<Suppression>('GET', `${path}/${encodeURIComponent(email)}`) });
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) setFound({ email, entry: null });
      else setError((e as Error).message);
    }
  }

  const remove = (email: string) =>
    change(async () => {
      await api('DELETE', `${path}/${encodeURIComponent(email)}`);
      if (found?.email.toLowerCase() === email) setFound({ email, entry: null });
    });

  const row = (s: Suppression) => (
    <tr key={s.email}>
      <td data-label="Address">{s.email}</td>
      <td data-label="Reason">{REASON[s.reason] ?? s.reason}</td>
      <td data-label="Message">{s.source_message_id ? <code>{s.source_message_id}</code> : <span className="muted">—</span>}</td>
      <td data-label="Since">{new Date(s.created_at).toLocaleString()}</td>
      {canChange && (
        <td className="actions">
          <ConfirmButton
            label="Remove"
            ariaLabel={`Remove ${s.email}`}
            warning="Mail to it will be sent again."
            confirmLabel={`Remove ${s.email}`}
            onConfirm={() => remove(s.email)}
          />
        </td>
      )}
    </tr>
  );
  const head = (
    <thead>
      <tr>
        <th scope="col">Address</th>
        <th scope="col">Reason</th>
        <th scope="col">Source message</th>
        <th scope="col">Since</th>
        {canChange && (
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );

  return (
    <>
      <h1>Suppressions</h1>
      {!canChange && <RoleNote role={role}>admins and developers add and remove addresses</RoleNote>}
      <form className="card wide inline-form" onSubmit={search} role="search" aria-labelledby="find-title">
        <h2 id="find-title">Look up an address</h2>
        <div className="row">
          <Field label="E-mail address" type="email" required value={query} onChange={(e) => setQuery(e.target.value)} />
          <button type="submit" className="primary">
            Look up
          </button>
        </div>
        {found && !found.entry && (
          <p className="notice" role="status">
            {found.email} is not on the suppression list: mail to it is sent.
          </p>
        )}
        {found?.entry && (
          <table className="table found">
            {head}
            <tbody>{row(found.entry)}</tbody>
          </table>
        )}
      </form>
      {canChange && (
        <OneFieldForm
          title="Add an address"
          label="Address to suppress"
          field="email"
          placeholder="someone@example.com"
          submitLabel="Suppress"
          onSubmit={async (email) => {
            await api('POST', path, { email });
            reload();
          }}
        />
      )}
      <section className="card wide" aria-labelledby="list-title">
        <h2 id="list-title">Suppressed addresses</h2>
        <FormError message={error} />
        <label className="filter">
          <span>Reason</span>
          <select
            value={reason}
            onChange={(e) => {
              setReason(e.target.value);
              setOffset(0);
            }}
          >
            <option value="">All</option>
            {Object.entries(REASON).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {page && page.entries.length === 0 && <p className="muted">No suppressed addresses{reason ? ' with this reason' : ''}.</p>}
        {page && page.entries.length > 0 && (
          <>
            <table className="table">
              {head}
              <tbody>{page.entries.map(row)}</tbody>
            </table>
            <p className="pager">
              <span>
                {offset + 1}–{offset + page.entries.length} of {page.total}
              </span>
              {page.total > PAGE && (
                <>
                  <button type="button" className="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
                    Previous
                  </button>
                  <button type="button" className="secondary" disabled={offset + PAGE >= page.total} onClick={() => setOffset(offset + PAGE)}>
                    Next
                  </button>
                </>
              )}
            </p>
          </>
        )}
      </section>
    </>
  );
}
