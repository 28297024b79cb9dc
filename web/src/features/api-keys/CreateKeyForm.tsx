import { useId, useState, type FormEvent } from 'react';
import { Field } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { splitError } from '../../components/errors';

export type Permission = 'full_access' | 'sending_access';
export const PERMISSION_LABELS: Record<Permission, string> = { full_access: 'Full access', sending_access: 'Sending only' };

export interface NewKey {
  name: string;
  permission: Permission;
  domain_id?: string;
}

interface CreateKeyFormProps {
  /** The workspace's domains, offered to restrict a sending key to one. */
  domains: { id: string; domain: string }[];
  onSubmit: (key: NewKey) => Promise<unknown>;
}

/** A key's name, what it may do, and (sending only) the one domain it may send from: the server's rules, offered as choices. */
export function CreateKeyForm({ domains, onSubmit }: CreateKeyFormProps) {
  const titleId = useId();
  const permissionId = useId();
  const domainId = useId();
  const [name, setName] = useState('');
  const [permission, setPermission] = useState<Permission>('full_access');
  const [domain, setDomain] = useState('');
  const [error, setError] = useState<string>();
  const errors = splitError(error, ['name', 'permission', 'domain_id']);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      await onSubmit({ name, permission, ...(permission === 'sending_access' && domain ? { domain_id: domain } : {}) });
      setName('');
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <form className="card inline-form" onSubmit={submit} aria-labelledby={titleId}>
      <h2 id={titleId}>Create a key</h2>
      <FormError message={errors.form ?? errors.field.permission ?? errors.field.domain_id} />
      <div className="row">
        <Field label="Name" value={name} onChange={(e) => setName(e.target.value)} placeholder="Production" error={errors.field.name} />
        <div className="field">
          <label htmlFor={permissionId}>Access</label>
          <select id={permissionId} value={permission} onChange={(e) => setPermission(e.target.value as Permission)}>
            {(Object.keys(PERMISSION_LABELS) as Permission[]).map((p) => (
              <option key={p} value={p}>
                {PERMISSION_LABELS[p]}
              </option>
            ))}
          </select>
        </div>
        {permission === 'sending_access' && (
          <div className="field">
            <label htmlFor={domainId}>Sends from</label>
            <select id={domainId} value={domain} onChange={(e) => setDomain(e.target.value)}>
              <option value="">Any domain</option>
              {domains.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.domain}
                </option>
              ))}
            </select>
          </div>
        )}
        <button type="submit" className="primary">
          Create key
        </button>
      </div>
    </form>
  );
}
