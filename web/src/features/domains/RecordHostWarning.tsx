import { useResource } from '../../lib/use-resource';

/** GET …/record-host: the host every domain's MX and SPF records name (MAILROOM_HOSTNAME), and what is wrong with it. */
interface RecordHost {
  mail_hostname: string;
  /** The server's sentence, naming the variable and what to set; null when public DNS can use the name. */
  warning: string | null;
}

/**
 * Above the domains while MAILROOM_HOSTNAME is no name public DNS can use
 * (`vm`, `box.local`): the records shown would point bounces, SPF and tracking domains at it.
 * The same rule and sentence as the warning `mailroom serve` logs at start.
 */
export function RecordHostWarning({ workspaceId }: { workspaceId: string }) {
  const { data } = useResource<RecordHost>(`/workspaces/${workspaceId}/record-host`);
  if (!data?.warning) return null;
  return (
    <section className="card wide warning-card" aria-labelledby="record-host-title">
      <h2 id="record-host-title">Set MAILROOM_HOSTNAME before publishing DNS records</h2>
      <p className="rate-warning">
        <strong>Warning:</strong> {data.warning}.
      </p>
      <p className="muted small">
        Each domain's return-path MX record and its SPF records, and a tracking domain's CNAME, name this host, now <code>{data.mail_hostname}</code>. Whoever runs Mailroom sets the variable in its environment
        and restarts it; the records shown here follow.
      </p>
    </section>
  );
}
