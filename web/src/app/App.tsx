import { useEffect, useState } from 'react';
import { SetupPage } from '../features/auth/SetupPage';
import { SignInPage } from '../features/auth/SignInPage';
import { navigate, usePath } from '../lib/router';
import { loadSession, type SessionInfo } from '../lib/session';
import { Shell } from './Shell';

type State = { kind: 'loading' } | { kind: 'failed'; message: string } | { kind: 'signed-out' } | { kind: 'signed-in'; session: SessionInfo; apiKey?: string };

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
  if (state.kind === 'signed-in') {
    return (
      <Shell
        session={state.session}
        path={path}
        apiKey={state.apiKey}
        onSessionChanged={(session) => setState({ kind: 'signed-in', session })}
        onSignedOut={() => {
          setState({ kind: 'signed-out' });
          navigate('/');
        }}
      />
    );
  }
  if (path === '/setup') {
    return <SetupPage onDone={(session, apiKey) => { setState({ kind: 'signed-in', session, apiKey }); navigate('/settings'); }} />;
  }
  return <SignInPage onSignedIn={(session) => { setState({ kind: 'signed-in', session }); navigate('/settings'); }} />;
}
