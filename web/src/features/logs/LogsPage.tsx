import { useEffect, useState } from 'react';
import { FormError } from '../../components/FormError';
import { LiveToggle } from '../../components/LiveToggle';
import { RoleNote } from '../../components/RoleNote';
import { useLive } from '../../lib/live';
import { navigate } from '../../lib/router';
import type { WorkspacePageProps } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { LogFilterForm } from './LogFilterForm';
import { filtersOfSearch, firstPageOf, isFiltered, searchOfFilters } from './log-filters';
import { SendTestForm } from './SendTestForm';

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
const BADGE: Record<string, string> = { delivered: 'verified', sent: 'pending', suppressed: 'pending', bounced: 'failed', complained: 'failed', failed: 'failed' };

const messagePath = (entry: LogEntry) => `/messages/${entry.message_id}`;

/**
 * A workspace's log, newest first: every filter of /v1/send/logs, combinable
 * and kept in the address (a link shows the same view), paged, each failed
 * or bounced entry with its error, a row leading to its message, and live
 * updates that a switch pauses. Everything shown from mail is text.
 */
export function LogsPage({ workspaceId, role }: WorkspacePageProps) {
  const [filters, setFilters] = useState(() => filtersOfSearch(window.location.search));
  const [live, setLive] = useState(true);
  const query = new URLSearchParams(searchOfFilters(filters).slice(1));
  query.set('limit', String(PAGE));
  const { data, error, reload } = useResource<LogPage>(`/workspaces/${workspaceId}/logs?${query}`);
  useLive(reload, live);

  useEffect(() => {
    const search = searchOfFilters(filters);
    if (search !== window.location.search) window.history.replaceState(null, '', `/logs${search}`);
  }, [filters]);

  // The cursors of the pages before this one, to go back to; a view opened from a link starts with none.
  const [newer, setNewer] = useState<string[]>([]);
  const older = () => {
    setNewer([...newer, filters.before]);
    setFilters({ ...filters, before: data!.entries.at(-1)!.id, offset: 0 });
  };
  const back = () => {
    setFilters({ ...filters, before: newer.at(-1) ?? '', offset: 0 });
    setNewer(newer.slice(0, -1));
  };
  const onFilters = (next: typeof filters) => {
    setNewer([]);
    setFilters(next);
  };
  const paged = filters.before !== '' || filters.offset > 0;
  const total = data && `${data.total.relation === 'gte' ? 'more than ' : ''}${data.total.count.toLocaleString()}`;
  return (
    <>
      <div className="page-head">
        <h1>Logs</h1>
        <LiveToggle on={live} onChange={setLive} />
      </div>
      <LogFilterForm key={searchOfFilters(firstPageOf(filters))} filters={filters} onChange={onFilters} />
      {role !== 'viewer' ? (
        <SendTestForm workspaceId={workspaceId} onSent={(messageId) => navigate(`/messages/${messageId}`)} />
      ) : (
        <RoleNote role={role}>admins and developers send test e-mails from here</RoleNote>
      )}
      <section className="card wide" aria-labelledby="logs-title">
        <h2 id="logs-title">Log entries{total !== undefined && <span className="muted"> ({total})</span>}</h2>
        <FormError message={error} />
        {data && data.entries.length === 0 && <p className="muted">{isFiltered(filters) ? 'No entries match these filters.' : 'No mail yet. Entries appear here as soon as mail is sent.'}</p>}
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
                      <a
                        href={messagePath(entry)}
                        onClick={(e) => {
                          e.preventDefault();
                          navigate(messagePath(entry));
                        }}
                      >
                        {entry.subject || '(no subject)'}
                      </a>
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
        {data && (paged || data.entries.length === PAGE) && (
          <div className="pager">
            <span>{paged ? 'Older entries' : 'The newest entries'}</span>
            <button type="button" className="secondary" disabled={!paged} onClick={() => onFilters(firstPageOf(filters))}>
              Newest
            </button>
            <button type="button" className="secondary" disabled={!paged} onClick={back}>
              Newer
            </button>
            <button type="button" className="secondary" disabled={data.entries.length < PAGE} onClick={older}>
              Older
            </button>
          </div>
        )}
      </section>
    </>
  );
}
