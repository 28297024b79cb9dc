import { FormError } from '../../components/FormError';
import { RoleNote } from '../../components/RoleNote';
import { TableHead } from '../../components/TableHead';
import { navigate } from '../../lib/router';
import type { WorkspacePageProps } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { NewTemplateForm } from './NewTemplateForm';
import { statusOf, when, type TemplateList } from './types';
import './templates.css';

const COLUMNS = ['Name', 'Alias', 'Kind', 'Status', 'Updated'];

/**
 * A workspace's templates and layouts: everyone sees them and opens each in
 * its editor; admins and developers create them, as they do domains.
 */
export function TemplatesPage({ workspaceId, role }: WorkspacePageProps) {
  const canChange = role !== 'viewer';
  const path = `/workspaces/${workspaceId}/templates`;
  const { data, error } = useResource<TemplateList>(path);

  return (
    <>
      <h1>Templates</h1>
      {!canChange && <RoleNote role={role}>admins and developers create, edit, publish and delete templates</RoleNote>}
      <p className="muted intro">
        E-mails written once and sent with <code>{'{{variables}}'}</code>: a send names a template by id or alias and gets its published version; edits
        wait in a draft until they are published. A layout holds <code>{'{{{content}}}'}</code>, where the templates that name it go.
      </p>
      {canChange && <NewTemplateForm path={path} onCreated={(id) => navigate(`/templates/${id}`)} />}
      <section className="card wide" aria-labelledby="templates-title">
        <h2 id="templates-title">Templates of this workspace</h2>
        <FormError message={error} />
        {data && data.templates.length === 0 && <p className="muted">No templates yet. {canChange ? 'Create one above.' : 'An admin or developer can create one.'}</p>}
        {data && data.templates.length > 0 && (
          <table className="table templates">
            <TableHead columns={COLUMNS} actions={false} />
            <tbody>
              {data.templates.map((t) => {
                const status = statusOf(t);
                return (
                  <tr key={t.id}>
                    <td data-label="Name">
                      <a
                        href={`/templates/${t.id}`}
                        onClick={(e) => {
                          e.preventDefault();
                          navigate(`/templates/${t.id}`);
                        }}
                      >
                        {t.name}
                      </a>
                    </td>
                    <td data-label="Alias">{t.alias ? <code>{t.alias}</code> : <span className="muted">none</span>}</td>
                    <td data-label="Kind">{t.kind === 'layout' ? 'Layout' : 'Template'}</td>
                    <td data-label="Status">
                      <span className={`badge ${status.badge}`}>{status.label}</span>
                    </td>
                    <td data-label="Updated">
                      <time dateTime={t.updated_at}>{when(t.updated_at)}</time>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        {data && data.total > data.templates.length && (
          <p className="muted small">
            Showing the newest {data.templates.length} of {data.total}; the others are reached through <code>GET /v1/templates</code>.
          </p>
        )}
      </section>
    </>
  );
}
