import { useState } from 'react';

interface ConfirmButtonProps {
  /** The button's text, and its accessible name. */
  label: string;
  ariaLabel: string;
  /** What confirming does, said before it is done. */
  warning: string;
  confirmLabel: string;
  /** The button that leaves things as they are: "Cancel" unless that would read as the action itself. */
  dismissLabel?: string;
  onConfirm: () => Promise<unknown> | void;
}

/** A destructive action asked for twice: the button, then the warning with the confirming button and Cancel. */
export function ConfirmButton({ label, ariaLabel, warning, confirmLabel, dismissLabel = 'Cancel', onConfirm }: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="secondary" aria-label={ariaLabel} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={`${ariaLabel}?`}>
      <span>{warning}</span>
      <button type="button" className="danger" onClick={() => void Promise.resolve(onConfirm()).finally(() => setAsking(false))}>
        {confirmLabel}
      </button>
      <button type="button" className="link" onClick={() => setAsking(false)}>
        {dismissLabel}
      </button>
    </span>
  );
}
