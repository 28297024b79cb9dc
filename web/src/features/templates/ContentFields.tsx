import { useId } from 'react';
import { Field } from '../../components/Field';
import type { Editable } from './draft';
import type { Template } from './types';

interface ContentFieldsProps {
  edit: Editable;
  onEdit: (edit: Editable) => void;
  kind: Template['kind'];
  /** The workspace's layouts, for a template to name one. */
  layouts: Template[];
  readOnly: boolean;
}

/** A source to edit: monospace, its lines kept, no spelling marks under tags. */
function SourceArea({ label, value, onChange, readOnly, rows, hint }: { label: string; value: string; onChange: (value: string) => void; readOnly: boolean; rows: number; hint?: string }) {
  const id = useId();
  return (
    <div className="field source-field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} className="source" value={value} rows={rows} spellCheck={false} readOnly={readOnly} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(e) => onChange(e.target.value)} />
      {hint && (
        <p className="field-hint muted small" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** The template's name and alias, then its content: subject, HTML, text, sender fields and layout. */
export function ContentFields({ edit, onEdit, kind, layouts, readOnly }: ContentFieldsProps) {
  const layoutId = useId();
  const set = (key: keyof Editable) => (value: string) => onEdit({ ...edit, [key]: value });
  return (
    <div className="content-fields">
      <div className="row pair">
        <Field label="Name" value={edit.name} readOnly={readOnly} onChange={(e) => set('name')(e.target.value)} />
        <Field label="Alias" value={edit.alias} readOnly={readOnly} placeholder="none" onChange={(e) => set('alias')(e.target.value)} />
      </div>
      {kind === 'template' && <Field label="Subject" value={edit.subject} readOnly={readOnly} placeholder="none: each send gives its own" onChange={(e) => set('subject')(e.target.value)} />}
      <SourceArea
        label="HTML"
        value={edit.html}
        onChange={set('html')}
        readOnly={readOnly}
        rows={18}
        hint={kind === 'layout' ? '{{{content}}} is where the template goes; {{key}} escapes a value, {{{key}}} does not.' : '{{key}} escapes a value, {{{key}}} does not; {{#key}}…{{/key}} shows when it is set.'}
      />
      {kind === 'template' && <SourceArea label="Text" value={edit.text} onChange={set('text')} readOnly={readOnly} rows={6} hint="Left empty, it is made from the rendered HTML." />}
      {kind === 'template' && (
        <div className="row pair">
          <Field label="From" value={edit.from} readOnly={readOnly} placeholder="none: the send's" onChange={(e) => set('from')(e.target.value)} />
          <Field label="Reply-to" value={edit.reply_to} readOnly={readOnly} placeholder="none" onChange={(e) => set('reply_to')(e.target.value)} />
        </div>
      )}
      {kind === 'template' && (
        <div className="field">
          <label htmlFor={layoutId}>Layout</label>
          <select id={layoutId} value={edit.layout_id} disabled={readOnly} onChange={(e) => set('layout_id')(e.target.value)}>
            <option value="">None</option>
            {layouts.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
        </div>
      )}
    </div>
  );
}
