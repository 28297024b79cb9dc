import { useEffect, useId, useState } from 'react';
import { FormError } from '../../components/FormError';
import { api } from '../../lib/api';
import { valuesOf } from './draft';
import type { Rendered, VariableDeclaration } from './types';

interface PreviewPanelProps {
  /** The template's path in the dashboard API. */
  path: string;
  /** The saved draft's declaration: the preview renders what is saved. */
  declarations: VariableDeclaration[];
  typed: Record<string, string>;
  onType: (typed: Record<string, string>) => void;
  /** Changes with every save, so that the preview follows the draft. */
  revision: number;
}

/** How long typing a value must pause before the preview renders it again. */
const RENDER_AFTER_MS = 300;

/**
 * The saved draft rendered with the values typed into a form built from its
 * declaration: the subject, the text, and the HTML in the same sandboxed
 * frame as a message's (no script, nothing remote until asked), served under
 * the frame's own policy by the dashboard API.
 */
export function PreviewPanel({ path, declarations, typed, onType, revision }: PreviewPanelProps) {
  const id = useId();
  const [rendered, setRendered] = useState<Rendered>();
  const [error, setError] = useState<string>();
  const [remote, setRemote] = useState(false);
  const [tab, setTab] = useState<'html' | 'text'>('html');
  const variables = JSON.stringify(valuesOf(declarations, typed));

  useEffect(() => {
    const timer = setTimeout(() => {
      api<Rendered>('POST', `${path}/render`, { variables: JSON.parse(variables) }).then(
        (answer) => {
          setRendered(answer);
          setError(undefined);
        },
        (e: Error) => {
          setRendered(undefined);
          setError(e.message);
        },
      );
    }, RENDER_AFTER_MS);
    return () => clearTimeout(timer);
  }, [path, variables, revision]);

  const frameSrc = `/dashboard/api${path}/preview?variables=${encodeURIComponent(variables)}${remote ? '&remote_images=1' : ''}`;
  return (
    <section className="card template-preview" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Preview</h2>
      {declarations.length > 0 && (
        <fieldset className="preview-values">
          <legend>Values</legend>
          {declarations.map((d) => (
            <div className="field" key={d.key}>
              <label htmlFor={`${id}-${d.key}`}>
                <code>{d.key}</code> <span className="muted small">{d.fallback_value === null ? `${d.type}, required` : `${d.type}, else “${d.fallback_value}”`}</span>
              </label>
              <input
                id={`${id}-${d.key}`}
                type={d.type === 'number' ? 'number' : 'text'}
                value={typed[d.key] ?? ''}
                onChange={(e) => onType({ ...typed, [d.key]: e.target.value })}
              />
            </div>
          ))}
        </fieldset>
      )}
      <FormError message={error} />
      {rendered && (
        <>
          <p className="preview-subject">
            <span className="muted small">Subject</span> {rendered.subject ?? <span className="muted">none: a send must give one</span>}
          </p>
          <div className="tabs" role="tablist" aria-label="Parts of the preview">
            {(['html', 'text'] as const).map((t) => (
              <button key={t} type="button" role="tab" aria-selected={tab === t} aria-controls={`${id}-part`} onClick={() => setTab(t)}>
                {t === 'html' ? 'HTML' : 'Text'}
              </button>
            ))}
          </div>
          <div role="tabpanel" id={`${id}-part`}>
            {tab === 'html' ? (
              <>
                <div className="action-row remote-row">
                  <span className="muted small">{remote ? 'Remote images are shown.' : 'Remote images are blocked until you ask for them.'}</span>
                  <button type="button" className={remote ? 'link' : 'secondary'} onClick={() => setRemote(!remote)}>
                    {remote ? 'Block them again' : 'Load remote images'}
                  </button>
                </div>
                {/* No allow-* token, as the message page's frame: nothing in it runs. Remounted at each render, so it shows the draft just saved. */}
                <iframe key={`${revision} ${variables}`} className="mail-frame" sandbox="" referrerPolicy="no-referrer" title="The template's HTML, rendered" src={frameSrc} />
              </>
            ) : (
              <pre className="mail-source" tabIndex={0}>
                {rendered.text}
              </pre>
            )}
          </div>
        </>
      )}
    </section>
  );
}
