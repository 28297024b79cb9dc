import { OneFieldForm } from '../../components/OneFieldForm';
import { api } from '../../lib/api';
import type { Role } from '../../lib/session';

export interface CreatedWorkspace {
  id: string;
  name: string;
  role: Role;
  api_key: string;
}

/** Another workspace, its creator its admin. */
export function NewWorkspaceForm({ onCreated }: { onCreated: (workspace: CreatedWorkspace) => void }) {
  return (
    <OneFieldForm
      title="Create a workspace"
      label="Workspace name"
      field="name"
      submitLabel="Create workspace"
      onSubmit={async (name) => onCreated(await api<CreatedWorkspace>('POST', '/workspaces', { name }))}
    />
  );
}
