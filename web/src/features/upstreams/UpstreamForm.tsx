import { useId, useState, type FormEvent } from 'react';
import { Field } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { splitError } from '../../components/errors';
import { createBody, draftOf, emptyDraft, patchBody, type Draft } from './draft';
import { UpstreamFields } from './UpstreamFields';
import { TYPE_LABELS, type Upstream } from './types';

const FIELDS = ['name', 'url', 'starttls', 'region', 'access_key_id', 'secret_access_key', 'configuration_set', 'endpoint'];

interface UpstreamFormProps {
  /** The upstream to change; without one, the form adds a new upstream. */
  upstream?: Upstream | undefined;
  /** Sends the body (POST's or PATCH's); a rejection's message is shown next to the field it names. */
  onSubmit: (body: Record<string, unknown>, name: string) => Promise<unknown>;
  onCancel?: () => void;
}

/** Adding an upstream of either type, or changing one (its type stays; blank secret fields keep the stored secrets). */
export function UpstreamForm({ upstream, onSubmit, onCancel }: UpstreamFormProps) {
  const titleId = useId();
  const typeId = useId();
  const [draft, setDraft] = useState<Draft>(() => (upstream ? draftOf(upstream) : emptyDraft()));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const errors = splitError(error, FIELDS);
  const set = (change: Partial<Draft>) => setDraft((d) => ({ ...d, ...change }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      await onSubmit(upstream ? patchBody(draft) : createBody(draft), draft.name.trim());
      if (!upstream) setDraft(emptyDraft(draft.type));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="card upstream-form" onSubmit={submit} aria-labelledby={titleId}>
      <h2 id={titleId}>{upstream ? `Change ${upstream.name}` : 'Add an upstream'}</h2>
      <FormError message={errors.form} />
      {upstream ? (
        <p className="muted">{TYPE_LABELS[upstream.type]}: the type stays; add another upstream for the other kind.</p>
      ) : (
        <div className="field">
          <label htmlFor={typeId}>Type</label>
          <select id={typeId} value={draft.type} onChange={(e) => set({ type: e.target.value as Upstream['type'] })}>
            {(Object.keys(TYPE_LABELS) as Upstream['type'][]).map((type) => (
              <option key={type} value={type}>
                {TYPE_LABELS[type]}
              </option>
            ))}
          </select>
        </div>
      )}
      <Field
        label="Name"
        required
        maxLength={100}
        autoFocus={upstream !== undefined}
        placeholder={draft.type === 'smtp' ? 'Postmark relay' : 'SES eu-west-1'}
        value={draft.name}
        onChange={(e) => set({ name: e.target.value })}
        error={errors.field.name}
      />
      <UpstreamFields draft={draft} set={set} errors={errors.field} editing={upstream ? { maskedKey: upstream.access_key_id } : undefined} />
      <div className="action-row">
        <button type="submit" className="primary" disabled={busy}>
          {upstream ? 'Save changes' : 'Add upstream'}
        </button>
        {onCancel && (
          <button type="button" className="link" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
