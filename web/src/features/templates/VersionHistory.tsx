import { useState } from 'react';
import { FormError } from '../../components/FormError';
import { TableHead } from '../../components/TableHead';
import { useResource } from '../../lib/use-resource';
import { DiffView } from './DiffView';
import { when, type Template, type TemplateVersion } from './types';

/** 'draft', or a published version's number. */
type Compared = 'draft' | number;

/**
 * Every published version, newest first, and a diff against the published
 * one: of the draft waiting, or of any older version picked from the list.
 */
export function VersionHistory({ path, template }: { path: string; template: Template }) {
  const { data: versions, error } = useResource<TemplateVersion[]>(`${path}/versions`);
  const [picked, setPicked] = useState<Compared>();
  const published = versions?.[0];
  const compared: Compared | undefined = picked ?? (template.has_unpublished_versions ? 'draft' : undefined);
  const other = compared === 'draft' ? template : versions?.find((v) => v.version === compared);

  return (
    <section className="card wide" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <FormError message={error} />
      {versions && versions.length === 0 && <p className="muted">Not published yet: sends cannot use it until it is. Publish makes the draft version 1.</p>}
      {versions && published && (
        <>
          <table className="table versions">
            <TableHead columns={['Version', 'Published', 'Subject']} actions />
            <tbody>
              {template.has_unpublished_versions && (
                <tr>
                  <td data-label="Version">Draft</td>
                  <td data-label="Published" className="muted">
                    not yet
                  </td>
                  <td data-label="Subject">{template.subject ?? <span className="muted">none</span>}</td>
                  <td className="actions">
                    <button type="button" className="secondary" aria-pressed={compared === 'draft'} onClick={() => setPicked('draft')}>
                      Compare
                    </button>
                  </td>
                </tr>
              )}
              {versions.map((v) => (
                <tr key={v.id}>
                  <td data-label="Version">
                    {v.version}
                    {v === published && <span className="badge badge-verified version-badge">published</span>}
                  </td>
                  <td data-label="Published">
                    <time dateTime={v.published_at}>{when(v.published_at)}</time>
                  </td>
                  <td data-label="Subject">{v.subject ?? <span className="muted">none</span>}</td>
                  <td className="actions">
                    {v !== published && (
                      <button type="button" className="secondary" aria-pressed={compared === v.version} onClick={() => setPicked(v.version)}>
                        Compare
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {other && (
            <div className="diff-panel">
              <h3>
                {compared === 'draft' ? 'The draft' : `Version ${compared}`} against the published version {published.version}
              </h3>
              <DiffView before={published} after={other} beforeLabel={`version ${published.version}`} afterLabel={compared === 'draft' ? 'the draft' : `version ${compared}`} />
            </div>
          )}
        </>
      )}
    </section>
  );
}
