import { useId, type ComponentProps } from 'react';
import { Field } from '../../components/Field';
import type { Draft } from './draft';
import { STARTTLS_LABELS, type StartTls } from './types';

interface UpstreamFieldsProps {
  draft: Draft;
  set: (change: Partial<Draft>) => void;
  /** Errors by the API's field names (components/errors.ts). */
  errors: Record<string, string>;
  /** Editing a stored upstream: its masked access key id, and every secret field blank to keep the stored one. */
  editing?: { maskedKey: string | undefined } | undefined;
}

type TextKey = Exclude<keyof Draft, 'type' | 'starttls'>;

const KEEP = 'Leave blank to keep the current one.';

/** The fields of one type of upstream: a relay's URL, password and STARTTLS policy; an SES account's region and keys. */
export function UpstreamFields({ draft, set, errors, editing }: UpstreamFieldsProps) {
  const starttlsId = useId();
  // A field of the draft, named as the API names it so that the server's error about it shows under it.
  const field = (key: TextKey, label: string, props: Partial<ComponentProps<typeof Field>> = {}) => (
    <Field label={label} spellCheck={false} value={draft[key]} onChange={(e) => set({ [key]: e.target.value })} error={errors[key]} {...props} />
  );
  // Typed blind; when editing, blank keeps the stored one, so never required then.
  const secret = (key: TextKey, label: string, hints: { creating: string; editing: string }, required: boolean) =>
    field(key, label, { type: 'password', autoComplete: 'new-password', required: required && !editing, hint: editing ? hints.editing : hints.creating });

  if (draft.type === 'smtp') {
    return (
      <>
        {field('url', 'Relay URL', {
          required: true,
          placeholder: 'smtp://user@relay.example.com',
          hint: 'smtp:// (STARTTLS, port 587 by default) or smtps:// (TLS from the start, 465), with the user name when the relay asks for AUTH.',
        })}
        {secret('password', 'Password', { creating: 'If the relay asks for AUTH. Stored encrypted, never shown again.', editing: `${KEEP} A new user name in the URL needs its password.` }, false)}
        <div className="field">
          <label htmlFor={starttlsId}>STARTTLS</label>
          <select id={starttlsId} value={draft.starttls} onChange={(e) => set({ starttls: e.target.value as StartTls })}>
            {(Object.keys(STARTTLS_LABELS) as StartTls[]).map((policy) => (
              <option key={policy} value={policy}>
                {STARTTLS_LABELS[policy]}
              </option>
            ))}
          </select>
          {errors.starttls && <p className="field-error" role="alert">{errors.starttls}</p>}
        </div>
      </>
    );
  }
  return (
    <>
      {field('region', 'Region', { required: !editing, placeholder: 'eu-west-1' })}
      {field('access_key_id', 'Access key ID', { required: !editing, autoComplete: 'off', placeholder: editing?.maskedKey ?? 'AKIA…', hint: editing ? KEEP : undefined })}
      {secret('secret_access_key', 'Secret access key', { creating: 'Stored encrypted, never shown again.', editing: KEEP }, true)}
      {field('configuration_set', 'Configuration set (optional)')}
      {field('endpoint', 'Endpoint (optional)', {
        placeholder: 'https://email.eu-west-1.amazonaws.com',
        hint: "Only for an SES-compatible service or a test double: SES's own endpoint follows from the region.",
      })}
    </>
  );
}
