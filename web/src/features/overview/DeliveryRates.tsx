import { AppLink } from './AppLink';
import { logsLink } from './period';
import { BOUNCE_REVIEW_RATE, COMPLAINT_REVIEW_RATE, formatRate, ratesOf } from './rates';
import { figureOf, type Stats } from './stats';

interface RateCardProps {
  id: string;
  title: string;
  rate: number | null;
  count: number;
  handedOn: number;
  threshold: number;
  /** What the threshold means for this rate, and what to do about it. */
  advice: string;
  href: string;
  linkText: string;
}

function RateCard({ id, title, rate, count, handedOn, threshold, advice, href, linkText }: RateCardProps) {
  const over = rate !== null && rate >= threshold;
  return (
    <section className={`card rate${over ? ' rate-over' : ''}`} aria-labelledby={id}>
      <h3 id={id} className="rate-title">
        {title}
      </h3>
      <p className="rate-value">{formatRate(rate)}</p>
      {rate !== null && (
        <p className="muted small">
          {count.toLocaleString()} of {handedOn.toLocaleString()} recipients handed on for delivery
        </p>
      )}
      {over ? (
        <p className="rate-warning">
          <strong>Warning: {formatRate(threshold)} or more.</strong> {advice}
        </p>
      ) : rate === null ? (
        // Nothing to divide by: "under the threshold" would be true of no mail at all, and says nothing.
        <p className="rate-fine">No mail handed on for delivery in this period yet.</p>
      ) : (
        <p className="rate-fine">Under the {formatRate(threshold)} at which Amazon SES reviews an account.</p>
      )}
      <AppLink className="rate-link" href={href}>
        {linkText}
      </AppLink>
    </section>
  );
}

/**
 * The bounce and complaint rates of the period against the thresholds at
 * which Amazon SES reviews an account (rates.ts says what is divided by
 * what), each linking to the entries it counts.
 */
export function DeliveryRates({ stats, since }: { stats: Stats; since: string }) {
  const { handedOn, bounce, complaint } = ratesOf(stats);
  return (
    <section className="rates" aria-labelledby="rates-title">
      <h2 id="rates-title">Bounce and complaint rates</h2>
      <div className="rates-row">
        <RateCard
          id="bounce-rate"
          title="Bounce rate"
          rate={bounce}
          count={stats.bounced}
          handedOn={handedOn}
          threshold={BOUNCE_REVIEW_RATE}
          advice="Amazon SES reviews an account from this rate on, and mailbox providers trust its mail less: look at the addresses that bounced and where they came from."
          href={logsLink(figureOf('bounced').filter, since)}
          linkText="See the bounces in the logs"
        />
        <RateCard
          id="complaint-rate"
          title="Complaint rate"
          rate={complaint}
          count={stats.complained}
          handedOn={handedOn}
          threshold={COMPLAINT_REVIEW_RATE}
          advice="Amazon SES reviews an account from this rate on: look at who complained, and about which mail."
          href={logsLink(figureOf('complained').filter, since)}
          linkText="See the complaints in the logs"
        />
      </div>
    </section>
  );
}
