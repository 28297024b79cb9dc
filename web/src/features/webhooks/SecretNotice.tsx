import { CopyButton } from '../../components/CopyButton';
import type { ShownSecret } from './types';

/** A signing secret, shown this once with a copy button and what to do with it. */
export function SecretNotice({ shown, onDone }: { shown: ShownSecret; onDone: () => void }) {
  return (
    <section className="card notice-card" aria-labelledby="secret-title">
      <h2 id="secret-title">{shown.title}</h2>
      <p>
        <strong>Copy the signing secret now: it is not shown again.</strong> Your receiver verifies every request with it (any Standard
        Webhooks library can).
      </p>
      <div className="secret-row">
        <code className="secret">{shown.secret}</code>
        <CopyButton value={shown.secret} />
      </div>
      <button type="button" className="link" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
