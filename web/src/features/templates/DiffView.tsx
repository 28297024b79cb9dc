import { diffLines } from 'diff';
import { CONTENT_FIELDS } from './draft';
import type { TemplateContent } from './types';

/** Unchanged lines kept around each change; longer unchanged runs are folded to a count. */
const CONTEXT = 3;

type Line = { kind: 'added' | 'removed' | 'same'; text: string } | { kind: 'folded'; count: number };

const shown = (content: TemplateContent, key: keyof TemplateContent): string => {
  const value = content[key];
  if (key === 'variables') return (value as TemplateContent['variables']).map((v) => `${v.key}: ${v.type}${v.fallback_value === null ? '' : ` = ${JSON.stringify(v.fallback_value)}`}`).join('\n');
  return value === null ? '' : String(value);
};

/** The lines of a diff, each unchanged run longer than twice CONTEXT folded but for its CONTEXT lines next to a change. */
function linesOf(before: string, after: string): Line[] {
  const parts = diffLines(before, after);
  return parts.flatMap((part, i): Line[] => {
    const texts = part.value.replace(/\n$/, '').split('\n');
    if (part.added || part.removed) return texts.map((text) => ({ kind: part.added ? 'added' : 'removed', text }));
    const head = i === 0 ? 0 : CONTEXT;
    const tail = i === parts.length - 1 ? 0 : CONTEXT;
    if (texts.length <= head + tail + 1) return texts.map((text) => ({ kind: 'same', text }));
    const same = (slice: string[]): Line[] => slice.map((text) => ({ kind: 'same', text }));
    return [...same(texts.slice(0, head)), { kind: 'folded', count: texts.length - head - tail }, ...same(texts.slice(texts.length - tail))];
  });
}

const SIGN = { added: '+ ', removed: '− ', same: '  ' } as const;

/** Line by line, what `after` changes of `before`, field by field; unchanged fields are left out. */
export function DiffView({ before, after, beforeLabel, afterLabel }: { before: TemplateContent; after: TemplateContent; beforeLabel: string; afterLabel: string }) {
  const changed = CONTENT_FIELDS.filter(({ key }) => shown(before, key) !== shown(after, key));
  if (changed.length === 0) return <p className="muted">{afterLabel} is the same as {beforeLabel}.</p>;
  return (
    <div className="diff">
      <p className="muted small">
        <span className="diff-key diff-removed">− {beforeLabel}</span> <span className="diff-key diff-added">+ {afterLabel}</span>
      </p>
      {changed.map(({ key, label }) => (
        <section key={key} aria-label={`${label} changes`}>
          <h3>{label}</h3>
          <pre className="diff-lines" tabIndex={0}>
            {linesOf(shown(before, key), shown(after, key)).map((line, i) =>
              line.kind === 'folded' ? (
                <span key={i} className="diff-folded">
                  ⋯ {line.count} unchanged {line.count === 1 ? 'line' : 'lines'}
                  {'\n'}
                </span>
              ) : (
                <span key={i} className={`diff-${line.kind}`}>
                  {SIGN[line.kind]}
                  {line.text}
                  {'\n'}
                </span>
              ),
            )}
          </pre>
        </section>
      ))}
    </div>
  );
}
