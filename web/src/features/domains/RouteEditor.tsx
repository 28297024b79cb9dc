import { useId, useState } from 'react';
import { FormError } from '../../components/FormError';
import { Wrappable } from '../../components/Wrappable';
import { navigate } from '../../lib/router';
import { KIND, MAX_ROUTE, nameOf, type RouteUpstream } from './route';

interface RouteEditorProps {
  domain: { domain: string; upstream_ids: string[] };
  /** The workspace's upstreams, to choose from. */
  upstreams: RouteUpstream[];
  /** PATCHes the route; a refusal's sentence is shown above it. */
  onSave: (ids: string[]) => Promise<unknown>;
  onClose: () => void;
}

/** Choosing a domain's upstreams and their order (up and down), then saving the route at once. */
export function RouteEditor({ domain, upstreams, onSave, onClose }: RouteEditorProps) {
  const selectId = useId();
  const [chosen, setChosen] = useState(domain.upstream_ids);
  const [pick, setPick] = useState('');
  const [error, setError] = useState<string>();
  const available = upstreams.filter((u) => !chosen.includes(u.id));
  const picked = available.some((u) => u.id === pick) ? pick : (available[0]?.id ?? '');

  const move = (from: number, to: number) =>
    setChosen((ids) => {
      const next = [...ids];
      next.splice(to, 0, ...next.splice(from, 1));
      return next;
    });

  async function save() {
    setError(undefined);
    try {
      await onSave(chosen);
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <section className="card route-editor" aria-labelledby="route-title">
      <h2 id="route-title">
        Route of <Wrappable text={domain.domain} />
      </h2>
      <p className="muted">
        Mail from this domain goes to the first upstream; while that one fails or is down, to the next. With none, the server's upstream sends it.
      </p>
      <FormError message={error} />
      {chosen.length === 0 ? (
        <p>No upstreams: the server's upstream sends this domain's mail.</p>
      ) : (
        <ol className="route-steps" aria-label={`Upstreams of ${domain.domain}, in order`}>
          {chosen.map((id, i) => {
            const name = nameOf(upstreams, id);
            const kind = upstreams.find((u) => u.id === id)?.type;
            return (
              <li key={id}>
                <span className="route-step-name">
                  {name} {kind && <span className="muted small">{KIND[kind]}</span>}
                </span>
                <span className="action-row">
                  <button type="button" className="secondary" aria-label={`Move ${name} up`} disabled={i === 0} onClick={() => move(i, i - 1)}>
                    Up
                  </button>
                  <button type="button" className="secondary" aria-label={`Move ${name} down`} disabled={i === chosen.length - 1} onClick={() => move(i, i + 1)}>
                    Down
                  </button>
                  <button type="button" className="secondary" aria-label={`Remove ${name} from the route`} onClick={() => setChosen((ids) => ids.filter((x) => x !== id))}>
                    Remove
                  </button>
                </span>
              </li>
            );
          })}
        </ol>
      )}
      {upstreams.length === 0 && (
        <p className="muted">
          This workspace has no upstreams yet:{' '}
          <a href="/upstreams" onClick={(e) => {
              e.preventDefault();
              navigate('/upstreams');
            }}>
            add one on the Upstreams page
          </a>
          .
        </p>
      )}
      {available.length > 0 && chosen.length < MAX_ROUTE && (
        <div className="row route-add">
          <div className="field">
            <label htmlFor={selectId}>Upstream to add</label>
            <select id={selectId} value={picked} onChange={(e) => setPick(e.target.value)}>
              {available.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.name} ({KIND[u.type]})
                </option>
              ))}
            </select>
          </div>
          <button type="button" className="secondary" onClick={() => setChosen((ids) => [...ids, picked])}>
            Add to route
          </button>
        </div>
      )}
      {chosen.length >= MAX_ROUTE && <p className="muted small">A route names {MAX_ROUTE} upstreams at most.</p>}
      <div className="action-row">
        <button type="button" className="primary" onClick={save}>
          Save route
        </button>
        <button type="button" className="link" onClick={onClose}>
          Cancel
        </button>
      </div>
    </section>
  );
}
