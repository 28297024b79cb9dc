import { useId, useState, type FormEvent } from 'react';
import { Field } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { splitError } from '../../components/errors';
import { api } from '../../lib/api';
import type { Template } from './types';

/** What a new template or layout starts from: something that renders, to be edited in the editor. */
const STARTERS = {
  template: {
    subject: 'Welcome, {{first_name}}',
    html: '<p>Hello {{first_name}},</p>\n<p>Thanks for signing up.</p>',
    variables: [{ key: 'first_name', type: 'string', fallback_value: 'there' }],
  },
  layout: {
    html: '<!doctype html>\n<html>\n<body style="font-family: sans-serif">\n{{{content}}}\n</body>\n</html>',
    variables: [],
  },
} as const;

/** A name, an alias and a kind; the content is edited in the editor the new template opens in. */
export function NewTemplateForm({ path, onCreated }: { path: string; onCreated: (id: string) => void }) {
  const titleId = useId();
  const [form, setForm] = useState({ name: '', alias: '', kind: 'template' as 'template' | 'layout' });
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const errors = splitError(error, ['name', 'alias']);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const created = await api<Template>('POST', path, { name: form.name, alias: form.alias.trim() || null, kind: form.kind, ...STARTERS[form.kind] });
      onCreated(created.id);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card" aria-labelledby={titleId}>
      <h2 id={titleId}>New template</h2>
      <form onSubmit={submit} className="inline-form">
        <FormError message={errors.form} />
        <Field label="Name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} error={errors.field.name} required placeholder="Password reset" />
        <Field
          label="Alias (optional)"
          value={form.alias}
          onChange={(e) => setForm({ ...form, alias: e.target.value })}
          error={errors.field.alias}
          hint="What a send may name it by instead of its id: letters, digits, . _ and -"
          placeholder="password-reset"
        />
        <fieldset className="checks">
          <legend>Kind</legend>
          {(['template', 'layout'] as const).map((kind) => (
            <label key={kind} className="check">
              <input type="radio" name={`${titleId}-kind`} checked={form.kind === kind} onChange={() => setForm({ ...form, kind })} />
              {kind === 'template' ? 'Template: an e-mail to send' : 'Layout: a frame around templates'}
            </label>
          ))}
        </fieldset>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create and edit'}
        </button>
      </form>
    </section>
  );
}
