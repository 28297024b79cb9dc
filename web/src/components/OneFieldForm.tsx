import { useId, useState, type FormEvent } from 'react';
import { Field } from './Field';
import { FormError } from './FormError';
import { splitError } from './errors';

interface OneFieldFormProps {
  title: string;
  label: string;
  /** The field's name in the API, so that the server's error about it shows next to it. */
  field: string;
  placeholder?: string;
  submitLabel: string;
  /** Sends the value; a rejection's message is shown (next to the field when it names it). */
  onSubmit: (value: string) => Promise<unknown>;
}

/** A card with one labelled field and its button: creating a key, adding a domain, a new workspace. */
export function OneFieldForm({ title, label, field, placeholder, submitLabel, onSubmit }: OneFieldFormProps) {
  const titleId = useId();
  const [value, setValue] = useState('');
  const [error, setError] = useState<string>();
  const errors = splitError(error, [field]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      await onSubmit(value);
      setValue('');
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <form className="card inline-form" onSubmit={submit} aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      <FormError message={errors.form} />
      <div className="row">
        <Field label={label} value={value} onChange={(e) => setValue(e.target.value)} placeholder={placeholder} error={errors.field[field]} />
        <button type="submit" className="primary">
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
