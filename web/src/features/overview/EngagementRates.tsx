import { AppLink } from './AppLink';
import { engagementRates, formatShare, type Engagement, type EngagementRate } from './engagement';

function TurnOnTracking({ what }: { what: string }) {
  return (
    <p className="muted small">
      No {what} in this period — <AppLink className="rate-link" href="/domains">turn on tracking per domain</AppLink>
    </p>
  );
}

interface CardProps {
  id: string;
  title: string;
  shown: EngagementRate;
  /** "opened", "clicked". */
  verb: string;
  /** "opens", "clicks": what machines did, for the line of what the rate leaves out. */
  noun: string;
  /** What had this kind of tracking on, for the line shown instead of a rate. */
  tracked: string;
}

function RateCard({ id, title, shown, verb, noun, tracked }: CardProps) {
  return (
    <section className="card rate" aria-labelledby={id}>
      <h3 id={id} className="rate-title">
        {title}
      </h3>
      {shown.rate === null ? (
        // Nothing tracked to divide by: 0 % would say nobody read mail that could not be seen being read.
        <TurnOnTracking what={tracked} />
      ) : (
        <>
          <p className="rate-value">{formatShare(shown.rate)}</p>
          <p className="muted small">
            {shown.unique.toLocaleString()} of {shown.tracked.toLocaleString()} tracked recipients {verb}
          </p>
        </>
      )}
      {shown.machine > 0 && (
        <p className="rate-fine">
          + {shown.machine.toLocaleString()} machine {shown.machine === 1 ? noun.slice(0, -1) : noun} not counted
        </p>
      )}
    </section>
  );
}

/**
 * The open and click rates of the period, of tracked mail only: each
 * recipient's first open or click by a person over the recipients handed over
 * with that tracking on (engagement.ts), machines' opens and clicks beside.
 */
export function EngagementRates({ engagement }: { engagement: Engagement }) {
  const { open, click } = engagementRates(engagement);
  const nothingTracked = open.rate === null && click.rate === null && open.machine === 0 && click.machine === 0;
  return (
    <section className="rates" aria-labelledby="engagement-title">
      <h2 id="engagement-title">Open and click rates</h2>
      {nothingTracked ? (
        <TurnOnTracking what="tracked mail" />
      ) : (
        <>
          <p className="muted small rates-note">
            Of tracked mail only, counting each recipient once, by a person. Machines, such as Apple Mail Privacy Protection and link scanners, are counted apart.
          </p>
          <div className="rates-row">
            <RateCard id="open-rate" title="Open rate" shown={open} verb="opened" noun="opens" tracked="mail with open tracking" />
            <RateCard id="click-rate" title="Click rate" shown={click} verb="clicked" noun="clicks" tracked="mail with click tracking" />
          </div>
        </>
      )}
    </section>
  );
}
