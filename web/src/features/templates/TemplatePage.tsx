import { useCallback, useState } from 'react';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormError } from '../../components/FormError';
import { RoleNote } from '../../components/RoleNote';
import { api } from '../../lib/api';
import { navigate } from '../../lib/router';
import type { WorkspacePageProps } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { ContentFields } from './ContentFields';
import { declarationsOf, editableOf, valuesOf, type Editable } from './draft';
import { PreviewPanel } from './PreviewPanel';
import { TestSend } from './TestSend';
import { statusOf, type Template, type TemplateList } from './types';
import { useAutosave, type SaveState } from './use-autosave';
import { VariablesEditor } from './VariablesEditor';
import { VersionHistory } from './VersionHistory';
import './templates.css';

const SAVE_WORDS: Record<SaveState['kind'], string> = { saved: 'Draft saved', waiting: 'Editing…', saving: 'Saving…', refused: 'Not saved' };

/**
 * One template's editor: its content beside a live preview of the saved
 * draft, the declaration, publish and duplicate, the version history with a
 * diff, and a test send to oneself. Viewers read it all and change nothing.
 */
export function TemplatePage({ workspaceId, role, id, userEmail }: WorkspacePageProps & { id: string }) {
  const path = `/workspaces/${workspaceId}/templates/${id}`;
  const { data: template, error, reload } = useResource<Template>(path);
  const { data: list } = useResource<TemplateList>(`/workspaces/${workspaceId}/templates`);
  if (!template) return <>{error ? <FormError message={error} /> : <p className="muted">Loading…</p>}</>;
  return <Editor key={template.id} template={template} path={path} workspaceId={workspaceId} readOnly={role === 'viewer'} role={role} userEmail={userEmail} layouts={(list?.templates ?? []).filter((t) => t.kind === 'layout')} onSaved={reload} />;
}

interface EditorProps {
  template: Template;
  path: string;
  workspaceId: string;
  readOnly: boolean;
  role: WorkspacePageProps['role'];
  userEmail: string;
  layouts: Template[];
  onSaved: () => Promise<void>;
}

function Editor({ template, path, workspaceId, readOnly, role, userEmail, layouts, onSaved }: EditorProps) {
  const [initial] = useState(() => editableOf(template));
  const [edit, setEdit] = useState<Editable>(initial);
  const [typed, setTyped] = useState<Record<string, string>>({});
  const [actionError, setActionError] = useState<string>();
  const saved = useCallback(() => void onSaved(), [onSaved]);
  const autosave = useAutosave(path, edit, initial, saved);
  const declarations = declarationsOf(autosave.saved.variables);
  const status = statusOf(template);

  async function act(call: () => Promise<unknown>) {
    setActionError(undefined);
    try {
      await call();
    } catch (e) {
      setActionError((e as Error).message);
    }
  }

  return (
    <>
      <div className="page-head template-head">
        <h1>{template.name}</h1>
        <span className={`badge ${status.badge}`}>{status.label}</span>
      </div>
      {readOnly && <RoleNote role={role}>admins and developers edit, publish, duplicate and delete templates</RoleNote>}
      <p className="muted template-ids">
        <code>{template.id}</code>
        {template.alias && (
          <>
            {' '}
            · alias <code>{template.alias}</code>
          </>
        )}{' '}
        · {template.kind === 'layout' ? 'a layout' : 'a template'}
      </p>
      {!readOnly && (
        <div className="action-row template-actions">
          <button type="button" className="primary" disabled={!template.has_unpublished_versions || autosave.state.kind !== 'saved'} onClick={() => void act(async () => { await api('POST', `${path}/publish`); await onSaved(); })}>
            Publish
          </button>
          <button type="button" className="secondary" onClick={() => void act(async () => navigate(`/templates/${(await api<Template>('POST', `${path}/duplicate`)).id}`))}>
            Duplicate
          </button>
          <ConfirmButton
            label="Delete"
            ariaLabel={`Delete ${template.name}`}
            warning="Sends naming it will be refused; mail already sent keeps its content."
            confirmLabel="Delete template"
            onConfirm={() => act(async () => { await api('DELETE', path); navigate('/templates'); })}
          />
          <span className={`save-state save-${autosave.state.kind}`} role="status">
            {SAVE_WORDS[autosave.state.kind]}
          </span>
        </div>
      )}
      <FormError message={actionError} />
      <div className="template-editor">
        <section className="card editor-card" aria-label="Content">
          {autosave.state.kind === 'refused' && (
            <p className="form-error" role="alert">
              {autosave.state.message}
            </p>
          )}
          <ContentFields edit={edit} onEdit={setEdit} kind={template.kind} layouts={layouts} readOnly={readOnly} />
          <VariablesEditor rows={edit.variables} onChange={(variables) => setEdit({ ...edit, variables })} readOnly={readOnly} />
        </section>
        <div className="preview-column">
          <PreviewPanel path={path} declarations={declarations} typed={typed} onType={setTyped} revision={autosave.revision} />
          {!readOnly && template.kind === 'template' && (
            <TestSend workspaceId={workspaceId} path={path} from={template.from} email={userEmail} variables={valuesOf(declarations, typed)} />
          )}
        </div>
      </div>
      <VersionHistory key={`${template.published_at} ${template.updated_at}`} path={path} template={template} />
    </>
  );
}
