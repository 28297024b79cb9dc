import { useId, useState, type FormEvent } from 'react';
import { Field } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { splitError } from '../../components/errors';
import { EVENT_TYPES, OPT_IN_EVENT_TYPES } from './types';

const EVERY_TYPE = [...EVENT_TYPES, ...OPT_IN_EVENT_TYPES].map((e) => e.type);

interface WebhookFormProps {
  /** Sends the endpoint; a rejection's message is shown next to the field it names. */
  onSubmit: (input: { url: string; events: string[] }) => Promise<unknown>;
}

/** Adding an endpoint: its URL and the events it receives (every message event unless unticked; the upstream events if ticked). */
export function WebhookForm({ onSubmit }: WebhookFormProps) {
  const id = useId();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(EVENT_TYPES.map((e) => e.type));
  const [error, setError] = useState<string>();
  const errors = splitError(error, ['url', 'events']);

  function toggle(type: string, on: boolean) {
    setEvents((chosen) => EVERY_TYPE.filter((t) => (t === type ? on : chosen.includes(t))));
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    // Checked here, in the form's words: the API's own sentence is about leaving the field out.
    if (events.length === 0) return setError('events Choose at least one event.');
    try {
      await onSubmit({ url: url.trim(), events });
      setUrl('');
      setEvents(EVENT_TYPES.map((e) => e.type));
    } catch (e) {
      setError((e as Error).message);
    }
  }

  const eventsError = errors.field.events;
  return (
    <form className="card" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Add an endpoint</h2>
      <FormError message={errors.form} />
      <Field
        label="Endpoint URL"
        type="url"
        required
        placeholder="https://example.com/webhooks"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        error={errors.field.url}
      />
      <fieldset className="checks" aria-describedby={eventsError ? `${id}-events-error` : undefined}>
        <legend>Events to send</legend>
        {[...EVENT_TYPES, ...OPT_IN_EVENT_TYPES].map((e) => (
          <label key={e.type} className="check">
            <input type="checkbox" checked={events.includes(e.type)} onChange={(change) => toggle(e.type, change.target.checked)} />
            <span>
              <strong>{e.type}</strong> <span className="muted">{e.meaning}</span>
            </span>
          </label>
        ))}
        {eventsError && (
          <p className="field-error" id={`${id}-events-error`} role="alert">
            {eventsError}
          </p>
        )}
      </fieldset>
      <button type="submit" className="primary">
        Add endpoint
      </button>
    </form>
  );
}
