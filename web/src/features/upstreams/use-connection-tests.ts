import { useCallback, useState } from 'react';
import { api } from '../../lib/api';
import type { Outcome } from './TestOutcome';
import type { TestResult } from './types';

/** The connection tests run on this page, by upstream id: each one's latest outcome, and a way to run one. */
export function useConnectionTests(path: string) {
  const [outcomes, setOutcomes] = useState<Record<string, Outcome>>({});
  const put = (id: string, outcome: Outcome | undefined) =>
    setOutcomes(({ [id]: _old, ...rest }) => (outcome ? { ...rest, [id]: outcome } : rest));

  const run = useCallback(
    async (id: string) => {
      put(id, { state: 'testing' });
      try {
        put(id, { state: 'done', result: await api<TestResult>('POST', `${path}/${id}/test`) });
      } catch (e) {
        put(id, { state: 'refused', message: (e as Error).message });
      }
    },
    [path],
  );
  /** A changed upstream's last outcome says nothing of it any more. */
  const forget = useCallback((id: string) => put(id, undefined), []);
  return { outcomes, run, forget };
}
