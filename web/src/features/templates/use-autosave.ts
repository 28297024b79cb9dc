import { useEffect, useState } from 'react';
import { api } from '../../lib/api';
import { changesOf, type Editable } from './draft';
import type { Template } from './types';

/** How long typing must pause before the draft is saved. */
const SAVE_AFTER_MS = 700;

export type SaveState = { kind: 'saved' } | { kind: 'waiting' } | { kind: 'saving' } | { kind: 'refused'; message: string };

/**
 * The editor's draft, saved as the user types: after a pause, what changed since the last save is
 * PATCHed (which makes the draft from the published version the first time). A refusal (a syntax
 * error with its line and column, an undeclared variable) is shown and the draft keeps its last good
 * content; the next edit tries again. `revision` counts the saves, for the preview to follow.
 */
export function useAutosave(path: string, edit: Editable, initial: Editable, onSaved: (view: Template) => void) {
  const [saved, setSaved] = useState(initial);
  const [state, setState] = useState<SaveState>({ kind: 'saved' });
  const [busy, setBusy] = useState(false);
  const [revision, setRevision] = useState(0);
  const [refused, setRefused] = useState<Editable>();

  useEffect(() => {
    if (busy || edit === refused) return;
    const body = changesOf(edit, saved);
    if (Object.keys(body).length === 0) {
      setState({ kind: 'saved' });
      return;
    }
    setState({ kind: 'waiting' });
    const timer = setTimeout(() => {
      setBusy(true);
      setState({ kind: 'saving' });
      api<Template>('PATCH', path, body).then(
        (view) => {
          setSaved(edit);
          setRevision((r) => r + 1);
          onSaved(view);
        },
        (error: Error) => {
          setRefused(edit);
          setState({ kind: 'refused', message: error.message });
        },
      ).finally(() => setBusy(false));
    }, SAVE_AFTER_MS);
    return () => clearTimeout(timer);
  }, [path, edit, saved, busy, refused, onSaved]);

  return { state, revision, saved };
}
