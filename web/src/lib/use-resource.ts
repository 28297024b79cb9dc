import { useCallback, useEffect, useState } from 'react';
import { api } from './api';

/**
 * What a page shows from one GET of the dashboard API: the data, the error of
 * the last read or change, a way to read again, and `change`, which runs a
 * change, shows its error if it fails, and reads the data again either way.
 */
export function useResource<T>(path: string) {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const reload = useCallback(
    (): Promise<void> =>
      // A successful read leaves the error alone: it may be the refusal of the change that asked for it.
      api<T>('GET', path).then(setData, (e: Error) => setError(e.message)),
    [path],
  );
  useEffect(() => void reload(), [reload]);
  const change = useCallback(
    async (call: () => Promise<unknown>) => {
      setError(undefined);
      try {
        await call();
      } catch (e) {
        setError((e as Error).message);
      }
      reload();
    },
    [reload],
  );
  return { data, error, setError, reload, change };
}
