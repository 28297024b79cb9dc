import type { SessionInfo } from '../../lib/session';
import { SignInForm } from './SignInForm';

export function SignInPage({ onSignedIn }: { onSignedIn: (session: SessionInfo) => void }) {
  return (
    <main className="auth">
      <SignInForm className="card auth-card" labelledBy="sign-in-title" onSignedIn={onSignedIn}>
        <p className="brand">Mailroom</p>
        <h1 id="sign-in-title">Sign in</h1>
      </SignInForm>
    </main>
  );
}
