import { useState, type FormEvent } from 'react';
import { firstPageOf, isoOfLocalInput, localInputOf, NO_FILTERS, type LogFilters } from './log-filters';

const STATUSES = ['sent', 'delivered', 'bounced', 'complained', 'suppressed', 'failed'] as const;
const TYPES = ['send', 'bounce', 'complaint'] as const;

interface LogFilterFormProps {
  filters: LogFilters;
  onChange: (filters: LogFilters) => void;
}

/**
 * The explorer's filters, all combinable: the selects apply at once, the
 * text and time fields on Search (or Enter), and Clear shows everything.
 */
export function LogFilterForm({ filters, onChange }: LogFilterFormProps) {
  const [draft, setDraft] = useState({ to: filters.to, from_email: filters.from_email, message_id: filters.message_id, since: localInputOf(filters.since), until: localInputOf(filters.until) });
  const apply = (changes: Partial<LogFilters>) => onChange(firstPageOf({ ...filters, ...changes }));

  function submit(event: FormEvent) {
    event.preventDefault();
    apply({ to: draft.to.trim(), from_email: draft.from_email.trim(), message_id: draft.message_id.trim(), since: isoOfLocalInput(draft.since), until: isoOfLocalInput(draft.until) });
  }

  const text = (name: 'to' | 'from_email' | 'message_id', label: string, placeholder: string) => (
    <label>
      <span>{label}</span>
      <input type="search" value={draft[name]} placeholder={placeholder} onChange={(e) => setDraft({ ...draft, [name]: e.target.value })} />
    </label>
  );
  const instant = (name: 'since' | 'until', label: string) => (
    <label>
      <span>{label}</span>
      <input type="datetime-local" value={draft[name]} onChange={(e) => setDraft({ ...draft, [name]: e.target.value })} />
    </label>
  );

  return (
    <form className="card wide filters" aria-label="Filters" onSubmit={submit}>
      <label>
        <span>Status</span>
        <select value={filters.status} onChange={(e) => apply({ status: e.target.value })}>
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <label>
        <span>Type</span>
        <select value={filters.type} onChange={(e) => apply({ type: e.target.value })}>
          <option value="">Any</option>
          {TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      {text('to', 'Recipient', 'someone@example.com')}
      {text('from_email', 'Sender', 'hello@yours.example')}
      {text('message_id', 'Message ID', 'msg_…')}
      {instant('since', 'Since')}
      {instant('until', 'Until')}
      <div className="action-row">
        <button type="submit" className="secondary">
          Search
        </button>
        <button
          type="button"
          className="link"
          onClick={() => {
            setDraft({ to: '', from_email: '', message_id: '', since: '', until: '' });
            onChange(NO_FILTERS);
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
