import { nameOf, type RouteUpstream } from './route';
import './route.css';

/** A domain's route in its row: the upstreams in the order they are tried (one down or degraded said so), or the server's when it names none. */
export function DomainRoute({ ids, upstreams }: { ids: string[]; upstreams: RouteUpstream[] | undefined }) {
  if (ids.length === 0) return <span className="muted">The server's upstream</span>;
  // Names, not ids, or nothing yet: the upstreams are read beside the domains.
  if (!upstreams) return <span className="muted">…</span>;
  return (
    <ol className="route">
      {ids.map((id) => {
        const health = upstreams?.find((u) => u.id === id)?.health;
        return (
          <li key={id}>
            {nameOf(upstreams, id)}
            {/* Said in the row: its mail goes to the next one meanwhile. */}
            {health && health !== 'healthy' && <span className="muted"> ({health})</span>}
          </li>
        );
      })}
    </ol>
  );
}
