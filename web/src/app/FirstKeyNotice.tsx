import { CopyButton } from '../components/CopyButton';

/**
 * A new workspace's first API key, shown once. The shell line beside it is the README's first step: pasted
 * into a terminal, it gives the README's `curl` send this workspace's key, so that send shows up here.
 */
export function FirstKeyNotice({ apiKey }: { apiKey: string }) {
  const exportLine = `export MAILROOM_API_KEY=${apiKey}`;
  return (
    <section className="card notice-card" aria-labelledby="key-title">
      <h2 id="key-title">The workspace's first API key</h2>
      <p>It is shown only now: copy it somewhere safe.</p>
      <div className="secret-row">
        <code className="secret">{apiKey}</code>
        <CopyButton value={apiKey} />
      </div>
      <p>
        To send from a terminal (the README's first send), paste this line there, then run the <code>curl</code> commands: the mail
        shows up on this workspace's Overview and Logs.
      </p>
      <div className="secret-row">
        <code className="secret shell-line" aria-label="Shell line setting MAILROOM_API_KEY">
          {exportLine}
        </code>
        <CopyButton value={exportLine} label="Copy line" />
      </div>
    </section>
  );
}
