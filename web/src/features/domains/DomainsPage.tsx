import { useState } from 'react';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormError } from '../../components/FormError';
import { RoleNote } from '../../components/RoleNote';
import { TableHead } from '../../components/TableHead';
import { OneFieldForm } from '../../components/OneFieldForm';
import { Wrappable } from '../../components/Wrappable';
import { api } from '../../lib/api';
import type { WorkspacePageProps } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { DnsRecords, type DomainDetail, type DomainTracking } from './DnsRecords';
import { DomainRoute } from './DomainRoute';
import { RecordHostWarning } from './RecordHostWarning';
import { RouteEditor } from './RouteEditor';
import { TrackingCell } from './TrackingSummary';
import { TrackingSettings } from './TrackingSettings';
import type { RouteUpstream } from './route';

interface DomainSummary extends DomainTracking {
  id: string;
  domain: string;
  status: 'pending' | 'verified' | 'failed';
  created_at: string;
  /** The upstreams its mail goes through, in order; empty: the server's. */
  upstream_ids: string[];
}

/** The empty list, saying what can send meanwhile: under the sandbox provider, its own domain. */
function NoDomains({ builtIn }: { builtIn: string[] }) {
  if (builtIn.length === 0) return <p className="muted">No domains yet. Mail can be sent from a domain once it is added and verified.</p>;
  return (
    <p className="muted">
      No domains yet. Mail can already be sent from {builtIn.map((d, i) => [i > 0 && ', ', <code key={d}>{d}</code>])} without one: the sandbox provider keeps it rather than
      delivering it (<code>mailroom sandbox show</code> reads it back). To send from a domain of your own, add it and verify it.
    </p>
  );
}

/** A workspace's sending domains: add one, publish its records (each with a copy button), verify, set its tracking, route through the workspace's upstreams, delete. */
export function DomainsPage({ workspaceId, role }: WorkspacePageProps) {
  const canChange = role !== 'viewer';
  const path = `/workspaces/${workspaceId}/domains`;
  const [open, setOpen] = useState<DomainDetail>();
  const [routing, setRouting] = useState<string>();
  const { data: domains, error, setError, reload, change } = useResource<DomainSummary[]>(path);
  // The domains mail may come from now: with none of the workspace's, what is left is built in (the sandbox's).
  const { data: senders } = useResource<string[]>(`/workspaces/${workspaceId}/sender-domains`);
  const { data: upstreams } = useResource<RouteUpstream[]>(`/workspaces/${workspaceId}/upstreams`);
  const routed = domains?.find((d) => d.id === routing);

  async function add(domain: string) {
    setOpen(await api<DomainDetail>('POST', path, { domain }));
    reload();
  }

  async function show(id: string) {
    setError(undefined);
    api<DomainDetail>('GET', `${path}/${id}`).then(setOpen, (e: Error) => setError(e.message));
  }

  const verify = (id: string) => change(async () => setOpen(await api<DomainDetail>('POST', `${path}/${id}/verify`)));

  const remove = (id: string) =>
    change(async () => {
      await api('DELETE', `${path}/${id}`);
      if (open?.id === id) setOpen(undefined);
      if (routing === id) setRouting(undefined);
    });

  async function saveRoute(id: string, upstreamIds: string[]) {
    await api('PATCH', `${path}/${id}`, { upstream_ids: upstreamIds });
    // Read again before the editor closes, so the row shows the route just saved at once.
    await reload();
    setRouting(undefined);
  }

  async function saveTracking(id: string, change: Pick<DomainTracking, 'open_tracking' | 'click_tracking' | 'tracking_domain'>) {
    // The answer lists the records as they now are: the tracking domain's CNAME appears, or goes, above.
    const saved = await api<DomainDetail>('PATCH', `${path}/${id}`, change);
    setOpen(saved);
    await reload();
    return saved;
  }

  return (
    <>
      <h1>Domains</h1>
      {!canChange && <RoleNote role={role}>admins and developers add, verify, route and delete domains and set their tracking</RoleNote>}
      <RecordHostWarning workspaceId={workspaceId} />
      {canChange && <OneFieldForm title="Add a domain" label="Domain" field="domain" placeholder="mail.example.com" submitLabel="Add domain" onSubmit={add} />}
      {canChange && routed && upstreams && (
        <RouteEditor key={routed.id} domain={routed} upstreams={upstreams} onSave={(ids) => saveRoute(routed.id, ids)} onClose={() => setRouting(undefined)} />
      )}
      {open && <DnsRecords domain={open} canChange={canChange} onVerify={() => verify(open.id)} onClose={() => setOpen(undefined)} />}
      {/* Keyed by the domain: another one's starts from its own saved values. */}
      {open && <TrackingSettings key={open.id} domain={open} canChange={canChange} onSave={(change) => saveTracking(open.id, change)} />}
      <section className="card wide" aria-labelledby="domains-title">
        <h2 id="domains-title">Domains of this workspace</h2>
        <FormError message={error} />
        {domains && domains.length === 0 && <NoDomains builtIn={senders ?? []} />}
        {domains && domains.length > 0 && (
          <table className="table domains-table">
            <TableHead columns={['Domain', 'Status', 'Route', 'Tracking', 'Added']} actions />
            <tbody>
              {domains.map((d) => (
                <tr key={d.id}>
                  <td data-label="Domain">
                    <Wrappable text={d.domain} />
                  </td>
                  <td data-label="Status">
                    <span className={`badge badge-${d.status}`}>{d.status}</span>
                  </td>
                  <td data-label="Route">
                    <DomainRoute ids={d.upstream_ids} upstreams={upstreams} />
                  </td>
                  <td data-label="Tracking">
                    <TrackingCell domain={d} />
                  </td>
                  <td data-label="Added">{new Date(d.created_at).toLocaleDateString()}</td>
                  <td className="actions">
                    <span className="action-row">
                      <button type="button" className="secondary" aria-label={`DNS records of ${d.domain}`} onClick={() => show(d.id)}>
                        DNS records
                      </button>
                      {canChange && (
                        <button type="button" className="secondary" aria-label={`Edit route of ${d.domain}`} onClick={() => setRouting(d.id)}>
                          Edit route
                        </button>
                      )}
                      {canChange && (
                        <ConfirmButton
                          label="Delete"
                          ariaLabel={`Delete ${d.domain}`}
                          warning="Mail from it is refused from then on."
                          confirmLabel={`Delete ${d.domain}`}
                          onConfirm={() => remove(d.id)}
                        />
                      )}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
