import { useId } from 'react';
import type { VariableRow } from './draft';

interface VariablesEditorProps {
  rows: VariableRow[];
  onChange: (rows: VariableRow[]) => void;
  readOnly: boolean;
}

/** The declaration: what the template takes, each key's type and its fallback. A tag naming anything else is refused at save. */
export function VariablesEditor({ rows, onChange, readOnly }: VariablesEditorProps) {
  const id = useId();
  const update = (i: number, row: Partial<VariableRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...row } : r)));
  return (
    <fieldset className="variables-editor">
      <legend>Variables</legend>
      {rows.length === 0 && <p className="muted small">None declared: the template takes no values.</p>}
      {rows.map((row, i) => (
        <div className="variable-row" key={i} role="group" aria-label={`Variable ${row.key || i + 1}`}>
          <div className="field">
            <label htmlFor={`${id}-key-${i}`}>Key</label>
            <input id={`${id}-key-${i}`} value={row.key} readOnly={readOnly} spellCheck={false} onChange={(e) => update(i, { key: e.target.value })} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-type-${i}`}>Type</label>
            <select id={`${id}-type-${i}`} value={row.type} disabled={readOnly} onChange={(e) => update(i, { type: e.target.value as VariableRow['type'] })}>
              <option value="string">string</option>
              <option value="number">number</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-fallback-${i}`}>Fallback</label>
            <input id={`${id}-fallback-${i}`} value={row.fallback} readOnly={readOnly} placeholder="none: required" onChange={(e) => update(i, { fallback: e.target.value })} />
          </div>
          {!readOnly && (
            <button type="button" className="link" aria-label={`Remove ${row.key || 'this variable'}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
              Remove
            </button>
          )}
        </div>
      ))}
      {!readOnly && (
        <button type="button" className="secondary" onClick={() => onChange([...rows, { key: '', type: 'string', fallback: '' }])}>
          Add a variable
        </button>
      )}
    </fieldset>
  );
}
