import type { SessionInfo } from '../../lib/session';
import { NewWorkspaceForm, type CreatedWorkspace } from './NewWorkspaceForm';
import { PasswordForm } from './PasswordForm';

export function SettingsPage({ session, workspaceId, onWorkspaceCreated }: { session: SessionInfo; workspaceId: string; onWorkspaceCreated: (w: CreatedWorkspace) => void }) {
  const workspace = session.workspaces.find((w) => w.id === workspaceId);
  return (
    <>
      <h1>Settings</h1>
      <section className="card" aria-labelledby="workspace-title">
        <h2 id="workspace-title">Workspace</h2>
        {workspace ? (
          <dl className="facts">
            <dt>Name</dt>
            <dd>{workspace.name}</dd>
            <dt>ID</dt>
            <dd>
              <code>{workspace.id}</code>
            </dd>
            <dt>Your role</dt>
            <dd>{workspace.role}</dd>
          </dl>
        ) : (
          <p className="muted">You are not a member of any workspace yet. Ask an administrator to invite you.</p>
        )}
      </section>
      <PasswordForm />
      <NewWorkspaceForm onCreated={onWorkspaceCreated} />
    </>
  );
}
