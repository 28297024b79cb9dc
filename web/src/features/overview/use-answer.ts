import { useEffect, useState } from 'react';
import { api } from '../../lib/api';

interface Answer<T> {
  path: string;
  data?: T;
  error?: string;
}

/**
 * One GET of the dashboard API, answered for the path asked now only: while
 * another period loads, the last one's figures are not shown under the new
 * one's name, and a slow answer to an earlier choice never overwrites a later.
 */
export function useAnswer<T>(path: string): { data?: T; error?: string } {
  const [answer, setAnswer] = useState<Answer<T>>({ path });
  useEffect(() => {
    let current = true;
    api<T>('GET', path).then(
      (data) => current && setAnswer({ path, data }),
      (e: Error) => current && setAnswer({ path, error: e.message }),
    );
    return () => {
      current = false;
    };
  }, [path]);
  return answer.path === path ? answer : {};
}
