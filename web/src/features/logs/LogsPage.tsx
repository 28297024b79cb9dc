import { useEffect, useState } from 'react';
import { FormError } from '../../components/FormError';
import type { WorkspacePageProps } from '../../lib/session';
import { useResource } from '../../lib/use-resource';

/** SPEC.md §2.3's log entry, as GET /v1/send/logs answers it. */
interface LogEntry {
  id: string;
  type: 'send' | 'bounce' | 'complaint';
  status: string;
  to: string;
  from_email: string;
  subject: string;
  message_id: string;
  error: string | null;
  created_at: string;
}

interface LogPage {
  entries: LogEntry[];
  total: { count: number; relation: 'eq' | 'gte' };
}

const PAGE = 50;
const STATUSES = ['sent', 'delivered', 'bounced', 'complained', 'suppressed', 'failed'] as const;
const BADGE: Record<string, string> = { delivered: 'verified', sent: 'pending', suppressed: 'pending', bounced: 'failed', complained: 'failed', failed: 'failed' };

/** The filters a link carries: `?status=…&to=…&offset=…`. */
function filtersOfUrl() {
  const query = new URLSearchParams(window.location.search);
  return { status: query.get('status') ?? '', to: query.get('to') ?? '', offset: Number(query.get('offset')) || 0 };
}

/**
 * A workspace's log, newest first: filtered by status and recipient, the
 * filters kept in the address so a link shows the same view, each failed or
 * bounced entry with its error. Everything shown from mail is text.
 */
export function LogsPage({ workspaceId }: WorkspacePageProps) {
  const [filters, setFilters] = useState(filtersOfUrl);
  const [to, setTo] = useState(filters.to);
  const query = new URLSearchParams({ limit: String(PAGE), offset: String(filters.offset) });
  if (filters.status) query.set('status', filters.status);
  if (filters.to) query.set('to', filters.to);
  const { data, error } = useResource<LogPage>(`/workspaces/${workspaceId}/logs?${query}`);

  useEffect(() => {
    const shown = new URLSearchParams();
    if (filters.status) shown.set('status', filters.status);
    if (filters.to) shown.set('to', filters.to);
    if (filters.offset) shown.set('offset', String(filters.offset));
    const search = shown.size > 0 ? `?${shown}` : '';
    if (search !== window.location.search) window.history.replaceState(null, '', `/logs${search}`);
  }, [filters]);

  const total = data && `${data.total.relation === 'gte' ? 'more than ' : ''}${data.total.count.toLocaleString()}`;
  return (
    <>
      <h1>Logs</h1>
      <form
        className="card wide filters"
        aria-label="Filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters({ ...filters, to: to.trim(), offset: 0 });
        }}
      >
        <label className="field">
          <span>Status</span>
          <select value={filters.status} onChange={(e) => setFilters({ ...filters, status: e.target.value, offset: 0 })}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Recipient</span>
          <input type="search" value={to} placeholder="someone@example.com" onChange={(e) => setTo(e.target.value)} />
        </label>
        <button type="submit" className="secondary">
          Search
        </button>
      </form>
      <section className="card wide" aria-labelledby="logs-title">
        <h2 id="logs-title">Log entries{total !== undefined && <span className="muted"> ({total})</span>}</h2>
        <FormError message={error} />
        {data && data.entries.length === 0 && <p className="muted">{filters.status || filters.to ? 'No entries match these filters.' : 'No mail yet. Entries appear here as soon as mail is sent.'}</p>}
        {data && data.entries.length > 0 && (
          <table className="table logs">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Recipient</th>
                <th scope="col">Subject</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {data.entries.map((entry) => (
                <tr key={entry.id}>
                  <td data-label="Time">{new Date(entry.created_at).toLocaleString()}</td>
                  <td data-label="Recipient">{entry.to}</td>
                  <td data-label="Subject">
                    <div>
                      {entry.subject}
                      <span className="muted small log-from">from {entry.from_email}</span>
                    </div>
                  </td>
                  <td data-label="Status">
                    <div>
                      <span className={`badge badge-${BADGE[entry.status] ?? 'pending'}`}>{entry.type === 'send' ? entry.status : `${entry.type}: ${entry.status}`}</span>
                      {entry.error && <span className="log-error">{entry.error}</span>}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {data && (filters.offset > 0 || data.entries.length === PAGE) && (
          <div className="pager">
            <span>
              {filters.offset + 1}–{filters.offset + data.entries.length}
            </span>
            <button type="button" className="secondary" disabled={filters.offset === 0} onClick={() => setFilters({ ...filters, offset: Math.max(0, filters.offset - PAGE) })}>
              Newer
            </button>
            <button type="button" className="secondary" disabled={data.entries.length < PAGE} onClick={() => setFilters({ ...filters, offset: filters.offset + PAGE })}>
              Older
            </button>
          </div>
        )}
      </section>
    </>
  );
}
