import { useEffect, useState } from 'react';
import { FormError } from '../../components/FormError';
import { api, ApiError } from '../../lib/api';
import { loadSession, signOut, type Role, type SessionInfo } from '../../lib/session';
import { InviteAccountForm } from './InviteAccountForm';
import { SignInForm } from './SignInForm';

interface Preview {
  workspace_name: string;
  role: Role;
  invited_by: string;
  expires_at: string;
}

const ROLE_CAN: Record<Role, string> = {
  admin: 'An admin manages the workspace and its members, and does everything a developer does.',
  developer: 'A developer sets up sending: API keys, domains, webhooks and suppressions.',
  viewer: 'A viewer sees everything in the workspace and changes nothing.',
};

interface InvitePageProps {
  /** The signed-in session, or null. */
  session: SessionInfo | null;
  /** Signed in here (to join next), or signed out (to join as someone else). */
  onSessionChanged: (session: SessionInfo | null) => void;
  onJoined: (session: SessionInfo, workspaceId: string) => void;
}

/**
 * An invitation link (`/invite?token=…`): what it offers, then joining, as
 * the signed-in user, or signed out with a new account or by signing in first
 * (which leaves the person here, to join).
 */
export function InvitePage({ session, onSessionChanged, onJoined }: InvitePageProps) {
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  const [preview, setPreview] = useState<Preview>();
  const [refusal, setRefusal] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [signingIn, setSigningIn] = useState(false);

  useEffect(() => {
    if (!token) {
      setRefusal('This page needs the invitation link an admin of the workspace gave you.');
      return;
    }
    api<Preview>('GET', `/invitations/${encodeURIComponent(token)}`).then(setPreview, (e: Error) => setRefusal(e.message));
  }, [token]);

  async function join() {
    setBusy(true);
    setError(undefined);
    try {
      const joined = await api<{ workspace_id: string }>('POST', `/invitations/${encodeURIComponent(token)}/accept`);
      const fresh = await loadSession();
      if (fresh) onJoined(fresh, joined.workspace_id);
      else onSessionChanged(null);
    } catch (e) {
      // The session ended meanwhile: back to the signed-out choices, on this page.
      if (e instanceof ApiError && e.status === 401) return onSessionChanged(null);
      setError((e as Error).message);
      setBusy(false);
    }
  }

  async function switchAccount() {
    await signOut().catch(() => undefined);
    onSessionChanged(null);
  }

  return (
    <main className="auth">
      <section className="card auth-card invite" aria-labelledby="invite-title">
        <p className="brand">Mailroom</p>
        {!preview && (
          <>
            <h1 id="invite-title">Invitation</h1>
            {refusal ? <FormError message={refusal} /> : <p className="muted">Loading…</p>}
            {refusal && <a href="/">{session ? 'Open the dashboard' : 'Go to sign-in'}</a>}
          </>
        )}
        {preview && (
          <>
            <h1 id="invite-title">Join {preview.workspace_name}</h1>
            <p className="invite-offer">
              <strong>{preview.invited_by}</strong> invited you to <strong>{preview.workspace_name}</strong> as <strong>{preview.role}</strong>.
            </p>
            <p className="muted">
              {ROLE_CAN[preview.role]} The link works once, until {new Date(preview.expires_at).toLocaleString()}.
            </p>
            {session ? (
              <>
                <p>
                  You are signed in as <strong>{session.user.email}</strong>.
                </p>
                <FormError message={error} />
                <button type="button" className="primary" disabled={busy} onClick={join}>
                  {busy ? 'Joining…' : `Join ${preview.workspace_name}`}
                </button>
                <p className="invite-switch">
                  Not you?{' '}
                  <button type="button" className="link" onClick={switchAccount}>
                    Sign out
                  </button>{' '}
                  to use another account, or <a href="/">open the dashboard</a>.
                </p>
              </>
            ) : signingIn ? (
              <>
                <SignInForm labelledBy="sign-in-first-title" onSignedIn={onSessionChanged}>
                  <h2 id="sign-in-first-title">Sign in to join</h2>
                </SignInForm>
                <p className="invite-switch">
                  New to Mailroom?{' '}
                  <button type="button" className="link" onClick={() => setSigningIn(false)}>
                    Create an account instead
                  </button>
                </p>
              </>
            ) : (
              <>
                <InviteAccountForm token={token} workspaceName={preview.workspace_name} onJoined={onJoined} />
                <p className="invite-switch">
                  Have an account already?{' '}
                  <button type="button" className="link" onClick={() => setSigningIn(true)}>
                    Sign in to join
                  </button>
                </p>
              </>
            )}
          </>
        )}
      </section>
    </main>
  );
}
