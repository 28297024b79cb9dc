import { useState, type FormEvent } from 'react';
import { Field } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { splitError } from '../../components/errors';
import { api } from '../../lib/api';

/** Changing one's password; the server ends every other session. */
export function PasswordForm() {
  const [form, setForm] = useState({ current_password: '', new_password: '' });
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();
  const errors = splitError(error, ['current_password', 'new_password']);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setDone(undefined);
    try {
      const { ended_sessions: ended } = await api<{ ended_sessions: number }>('POST', '/session/password', form);
      setForm({ current_password: '', new_password: '' });
      const others = ended === 0 ? '' : ended === 1 ? ' Your one other session was signed out.' : ` Your ${ended} other sessions were signed out.`;
      setDone(`Password changed.${others}`);
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <form className="card" onSubmit={submit} aria-labelledby="password-title">
      <h2 id="password-title">Your password</h2>
      <FormError message={errors.form} />
      {done && (
        <p className="notice" role="status">
          {done}
        </p>
      )}
      <Field
        label="Current password"
        type="password"
        autoComplete="current-password"
        required
        value={form.current_password}
        onChange={(e) => setForm({ ...form, current_password: e.target.value })}
        error={errors.field.current_password}
      />
      <Field
        label="New password (at least 10 characters)"
        type="password"
        autoComplete="new-password"
        required
        value={form.new_password}
        onChange={(e) => setForm({ ...form, new_password: e.target.value })}
        error={errors.field.new_password}
      />
      <button type="submit" className="primary">
        Change password
      </button>
    </form>
  );
}
