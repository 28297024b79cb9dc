import { OneFieldForm } from '../../components/OneFieldForm';
import { RoleNote } from '../../components/RoleNote';
import { api } from '../../lib/api';
import type { SessionInfo } from '../../lib/session';
import { NewWorkspaceForm, type CreatedWorkspace } from './NewWorkspaceForm';
import { PasswordForm } from './PasswordForm';

interface SettingsPageProps {
  session: SessionInfo;
  workspaceId: string;
  onWorkspaceCreated: (workspace: CreatedWorkspace) => void;
  onWorkspaceRenamed: (workspace: { id: string; name: string }) => void;
}

/** The chosen workspace (renamed by its admins), the signed-in user's password, and a new workspace. */
export function SettingsPage({ session, workspaceId, onWorkspaceCreated, onWorkspaceRenamed }: SettingsPageProps) {
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
        {workspace && workspace.role !== 'admin' && <RoleNote role={workspace.role}>admins rename it</RoleNote>}
      </section>
      {workspace?.role === 'admin' && (
        <OneFieldForm
          title="Rename this workspace"
          label="New name"
          field="name"
          submitLabel="Rename"
          onSubmit={async (name) => onWorkspaceRenamed(await api<{ id: string; name: string }>('PATCH', `/workspaces/${workspace.id}`, { name }))}
        />
      )}
      <PasswordForm />
      <NewWorkspaceForm onCreated={onWorkspaceCreated} />
    </>
  );
}
