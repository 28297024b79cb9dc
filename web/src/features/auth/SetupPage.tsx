import { useState, type FormEvent } from 'react';
import { Field } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { splitError } from '../../components/errors';
import { api, setCsrfToken } from '../../lib/api';
import type { SessionInfo } from '../../lib/session';

type SetupAnswer = SessionInfo & { api_key: string };

/** The first run: the link the server logged carries the token; the first person makes the admin account and a workspace. */
export function SetupPage({ onDone }: { onDone: (session: SessionInfo, apiKey: string) => void }) {
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  const [form, setForm] = useState({ email: '', password: '', workspace_name: '' });
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const errors = splitError(error, ['email', 'password', 'workspace_name']);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const answer = await api<SetupAnswer>('POST', '/setup', { token, ...form });
      setCsrfToken(answer.csrf_token);
      onDone(answer, answer.api_key);
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  }

  const set = (name: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value });
  return (
    <main className="auth">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="setup-title">
        <p className="brand">Mailroom</p>
        <h1 id="setup-title">Set up Mailroom</h1>
        <p className="muted">Create the first account. It will be the administrator of your first workspace.</p>
        {!token && (
          <p className="form-error" role="alert">
            This page needs the setup link Mailroom printed when it started.
          </p>
        )}
        <FormError message={errors.form} />
        <Field label="Your e-mail address" type="email" autoComplete="username" required value={form.email} onChange={set('email')} error={errors.field.email} />
        <Field label="Password (at least 10 characters)" type="password" autoComplete="new-password" required minLength={10} value={form.password} onChange={set('password')} error={errors.field.password} />
        <Field label="Workspace name" required value={form.workspace_name} onChange={set('workspace_name')} error={errors.field.workspace_name} placeholder="Acme" />
        <button type="submit" className="primary" disabled={busy || !token}>
          {busy ? 'Creating…' : 'Create account and workspace'}
        </button>
      </form>
    </main>
  );
}
