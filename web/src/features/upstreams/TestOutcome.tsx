import type { TestResult } from './types';

/** A connection test under way, answered, or not run because the server refused it (a host it may not reach). */
export type Outcome = { state: 'testing' } | { state: 'done'; result: TestResult } | { state: 'refused'; message: string };

/** What a connection test found, in the upstream's own words when it answered (a relay's 535, SES's error). */
export function TestOutcome({ name, outcome }: { name: string; outcome: Outcome }) {
  if (outcome.state === 'testing') return <p className="test-outcome muted">Testing the connection to {name}…</p>;
  if (outcome.state === 'refused') {
    return (
      <p className="test-outcome test-failed">
        <strong>Not tested:</strong> {outcome.message}
      </p>
    );
  }
  const { ok, detail, duration_ms } = outcome.result;
  return (
    <p className={`test-outcome ${ok ? 'test-ok' : 'test-failed'}`}>
      <strong>{ok ? 'Connection test passed' : 'Connection test failed'}</strong> <span className="muted">({duration_ms} ms)</span>{' '}
      <span className="test-detail">{detail}</span>
    </p>
  );
}
