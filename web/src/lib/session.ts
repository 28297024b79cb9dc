import { api, setCsrfToken } from './api';

export type Role = 'admin' | 'developer' | 'viewer';

/** What each page of a workspace is given by the shell. */
export interface WorkspacePageProps {
  workspaceId: string;
  role: Role;
  /** The signed-in user. */
  userId: string;
  userEmail: string;
  /** The user's own membership here changed (their role, or they left): the shell reads the session again. */
  onMembershipChanged: () => void;
}
export interface SessionInfo {
  user: { id: string; email: string };
  csrf_token: string;
  workspaces: Array<{ id: string; name: string; role: Role }>;
}

/** Who is signed in, or null: the first thing the app asks. */
export async function loadSession(): Promise<SessionInfo | null> {
  try {
    const session = await api<SessionInfo>('GET', '/session');
    setCsrfToken(session.csrf_token);
    return session;
  } catch (error) {
    if ((error as { status?: number }).status === 401) return null;
    throw error;
  }
}

export async function signIn(email: string, password: string): Promise<SessionInfo> {
  const session = await api<SessionInfo>('POST', '/session', { email, password });
  setCsrfToken(session.csrf_token);
  return session;
}

export async function signOut(): Promise<void> {
  await api('DELETE', '/session');
  setCsrfToken(undefined);
}
