import { AppLink } from './AppLink';
import { logsLink } from './period';
import { FIGURES, type Stats } from './stats';

/**
 * SPEC.md's six statistics as cards, each a link to the logs it counts. A
 * card's text is its label, then its value ("Sent2"), which is its accessible
 * name too: the label first, so a screen reader's list of links reads well.
 */
export function StatFigures({ stats, since, periodLabel }: { stats: Stats | undefined; since: string; periodLabel: string }) {
  return (
    <section className="figures" aria-label={`Mail of the last ${periodLabel}`} aria-busy={stats === undefined}>
      {FIGURES.map((f) => (
        <AppLink key={f.field} className="card figure" href={logsLink(f.filter, since)}>
          <span className="figure-label">{f.label}</span>
          <span className="figure-value">{stats ? stats[f.field].toLocaleString() : '…'}</span>
        </AppLink>
      ))}
    </section>
  );
}
