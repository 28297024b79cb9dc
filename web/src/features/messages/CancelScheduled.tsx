import { useState } from 'react';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormError } from '../../components/FormError';
import { api } from '../../lib/api';
import type { MessageDetail } from './types';

/** Whether the message waits for its time with nothing handed over yet: only then can it be canceled. */
export function isCancelable(message: MessageDetail): boolean {
  return (
    message.scheduled_at !== null &&
    Date.parse(message.scheduled_at) > Date.now() &&
    message.recipients.some((r) => r.status === 'sent') &&
    message.recipients.every((r) => r.attempts.length === 0)
  );
}

/** Cancels a scheduled send, asked twice because it cannot be undone; the page reads the message again either way. */
export function CancelScheduled({ path, onDone }: { path: string; onDone: () => void }) {
  const [error, setError] = useState<string>();
  async function cancel() {
    setError(undefined);
    try {
      await api('POST', `${path}/cancel`);
    } catch (e) {
      setError((e as Error).message);
    }
    onDone();
  }
  return (
    <>
      <ConfirmButton
        label="Cancel send"
        ariaLabel="Cancel this scheduled send"
        warning="Nothing will be delivered, and this cannot be undone."
        confirmLabel="Cancel send"
        dismissLabel="Keep it"
        onConfirm={cancel}
      />
      <FormError message={error} />
    </>
  );
}
