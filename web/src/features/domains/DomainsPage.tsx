import { useState } from 'react';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormError } from '../../components/FormError';
import { OneFieldForm } from '../../components/OneFieldForm';
import { api } from '../../lib/api';
import type { WorkspacePageProps } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { DnsRecords, type DomainDetail } from './DnsRecords';

interface DomainSummary {
  id: string;
  domain: string;
  status: 'pending' | 'verified' | 'failed';
  created_at: string;
}

/** A workspace's sending domains: add one, publish its records (each with a copy button), verify, delete. */
export function DomainsPage({ workspaceId, role }: WorkspacePageProps) {
  const canChange = role !== 'viewer';
  const path = `/workspaces/${workspaceId}/domains`;
  const [open, setOpen] = useState<DomainDetail>();
  const { data: domains, error, setError, reload, change } = useResource<DomainSummary[]>(path);

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
    });

  return (
    <>
      <h1>Domains</h1>
      {canChange && <OneFieldForm title="Add a domain" label="Domain" field="domain" placeholder="mail.example.com" submitLabel="Add domain" onSubmit={add} />}
      {open && <DnsRecords domain={open} canChange={canChange} onVerify={() => verify(open.id)} onClose={() => setOpen(undefined)} />}
      <section className="card wide" aria-labelledby="domains-title">
        <h2 id="domains-title">Domains of this workspace</h2>
        <FormError message={error} />
        {domains && domains.length === 0 && <p className="muted">No domains yet. Mail can be sent from a domain once it is added and verified.</p>}
        {domains && domains.length > 0 && (
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Domain</th>
                <th scope="col">Status</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {domains.map((d) => (
                <tr key={d.id}>
                  <td data-label="Domain">{d.domain}</td>
                  <td data-label="Status">
                    <span className={`badge badge-${d.status}`}>{d.status}</span>
                  </td>
                  <td data-label="Added">{new Date(d.created_at).toLocaleDateString()}</td>
                  <td className="actions">
                    <span className="action-row">
                      <button type="button" className="secondary" aria-label={`DNS records of ${d.domain}`} onClick={() => show(d.id)}>
                        DNS records
                      </button>
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
