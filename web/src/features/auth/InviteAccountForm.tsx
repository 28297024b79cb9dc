import { useState, type FormEvent } from 'react';
import { Field } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { splitError } from '../../components/errors';
import { api, setCsrfToken } from '../../lib/api';
import type { SessionInfo } from '../../lib/session';

type Joined = SessionInfo & { workspace_id: string };

/** A new account that joins with the invitation: signed in at once, as after signing in. */
export function InviteAccountForm({ token, workspaceName, onJoined }: { token: string; workspaceName: string; onJoined: (session: SessionInfo, workspaceId: string) => void }) {
  const [form, setForm] = useState({ email: '', password: '' });
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const errors = splitError(error, ['email', 'password']);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const joined = await api<Joined>('POST', `/invitations/${encodeURIComponent(token)}/account`, form);
      setCsrfToken(joined.csrf_token);
      onJoined(joined, joined.workspace_id);
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  }

  const set = (name: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value });
  return (
    <form onSubmit={submit} aria-labelledby="new-account-title">
      <h2 id="new-account-title">Create your account</h2>
      <FormError message={errors.form} />
      <Field label="Your e-mail address" type="email" autoComplete="username" required value={form.email} onChange={set('email')} error={errors.field.email} />
      <Field label="Password (at least 10 characters)" type="password" autoComplete="new-password" required minLength={10} value={form.password} onChange={set('password')} error={errors.field.password} />
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Joining…' : `Create account and join ${workspaceName}`}
      </button>
    </form>
  );
}
