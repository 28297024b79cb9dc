import { useEffect, useState } from 'react';
import { InvitePage } from '../features/auth/InvitePage';
import { SetupPage } from '../features/auth/SetupPage';
import { SignInPage } from '../features/auth/SignInPage';
import { navigate, usePath } from '../lib/router';
import { loadSession, type SessionInfo } from '../lib/session';
import { Shell } from './Shell';

type State = { kind: 'loading' } | { kind: 'failed'; message: string } | { kind: 'signed-out' } | { kind: 'signed-in'; session: SessionInfo; apiKey?: string; workspaceId?: string };

export function App() {
  const path = usePath();
  const [state, setState] = useState<State>({ kind: 'loading' });

  useEffect(() => {
    loadSession().then(
      (session) => setState(session ? { kind: 'signed-in', session } : { kind: 'signed-out' }),
      (error: Error) => setState({ kind: 'failed', message: error.message }),
    );
  }, []);

  if (state.kind === 'loading') return <p className="loading">Loading…</p>;
  if (state.kind === 'failed') return <p className="form-error" role="alert">{state.message}</p>;
  if (path === '/invite') {
    // An invitation link, signed in or out: after joining, the shell opens in the workspace joined.
    return (
      <InvitePage
        session={state.kind === 'signed-in' ? state.session : null}
        onSessionChanged={(session) => setState(session ? { kind: 'signed-in', session } : { kind: 'signed-out' })}
        onJoined={(session, workspaceId) => {
          setState({ kind: 'signed-in', session, workspaceId });
          navigate('/');
        }}
      />
    );
  }
  if (state.kind === 'signed-in') {
    return (
      <Shell
        session={state.session}
        path={path}
        apiKey={state.apiKey}
        workspaceId={state.workspaceId}
        onSessionChanged={(session) => setState({ kind: 'signed-in', session })}
        onSignedOut={() => {
          setState({ kind: 'signed-out' });
          navigate('/');
        }}
      />
    );
  }
  if (path === '/setup') {
    return <SetupPage onDone={(session, apiKey) => { setState({ kind: 'signed-in', session, apiKey }); navigate('/'); }} />;
  }
  // Signed in, the page asked for shows (a shared link to the logs opens the logs).
  return <SignInPage onSignedIn={(session) => setState({ kind: 'signed-in', session })} />;
}
