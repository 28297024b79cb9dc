import { useState, type FormEvent, type ReactNode } from 'react';
import { Field } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { signIn, type SessionInfo } from '../../lib/session';

interface SignInFormProps {
  onSignedIn: (session: SessionInfo) => void;
  /** The id of the form's heading, among `children` (shown above the fields). */
  labelledBy: string;
  className?: string;
  children: ReactNode;
}

/** E-mail address, password and the button: the sign-in page's form, and the invitation page's "sign in first". */
export function SignInForm({ onSignedIn, labelledBy, className, children }: SignInFormProps) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await signIn(email, password));
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  }

  return (
    <form className={className} onSubmit={submit} aria-labelledby={labelledBy}>
      {children}
      <FormError message={error} />
      <Field label="E-mail address" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      <Field label="Password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
