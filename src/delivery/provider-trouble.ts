import type { Logger } from 'pino';
import type { ProviderProblem } from './provider.js';

/** How long one problem stays quiet in the log after it was written once. */
export const TROUBLE_LOG_WINDOW_MS = 60_000;
/** Distinct problems remembered at once; older ones are forgotten first (a forgotten one is logged again). */
const MAX_REMEMBERED = 1000;

export interface TroubleCount {
  provider: string;
  host: string;
  problem: ProviderProblem['kind'];
  count: number;
}

export interface ProviderTrouble {
  /** A provider failure that is not the recipient's fault; `fails` when it fails the recipient rather than delaying it. */
  report(provider: string, problem: ProviderProblem, fails: boolean): void;
  /** Every report so far, per provider, host and kind of problem (for the metrics endpoint to come). */
  counts(): TroubleCount[];
}

/** The same problem whatever the message: addresses, numbers and queue ids taken out of the reply. */
function sameProblem(reply: string): string {
  return reply
    // An address is looked for from the start of a word only: from inside one, each try would read to its end.
    .replace(/(?:<|(?<![^\s<>"]))[^\s<>"]+@[^\s<>"]+>?/g, '<address>')
    .replace(/\b[0-9A-F]{6,}\b/gi, '<id>')
    .replace(/\b\d+(\.\d+)*\b/g, (n) => (/^[245]\.\d{1,3}\.\d{1,3}$|^[245]\d\d$/.test(n) ? n : '<n>'));
}

const WHAT: Record<ProviderProblem['kind'], string> = {
  connection: 'cannot connect to the provider',
  timeout: 'the provider did not answer in time',
  tls: 'the TLS connection to the provider failed',
  auth: "the provider refused Mailroom's credentials",
  sender: 'the provider refused the sender',
  'relay-policy': 'the provider refused to relay for Mailroom',
  session: 'the provider refused the session',
  throttling: 'the provider is throttling Mailroom',
  service: 'the provider answered with a server error',
  account: "the provider has stopped the account's sending",
  configuration: "the provider does not know a setting Mailroom names",
  request: "the provider refused Mailroom's request",
  smtputf8: 'the provider does not announce SMTPUTF8, which addresses with a non-ASCII local part need (SMTP_SMTPUTF8=true)',
};

/**
 * Tells the operator about provider trouble: one `warn` line (the recipient is
 * retried) or `error` line (recipients fail) per distinct problem per minute,
 * naming the provider, the host and the reply, with how many times it
 * happened since it was last written; a relay refusing every message of a
 * burst writes one line a minute, not one per message. Every report is
 * counted. Replies never carry SMTP_URL's credentials: the host is written
 * as host:port.
 */
export function createProviderTrouble(logger: Pick<Logger, 'warn' | 'error'>, now: () => number = Date.now): ProviderTrouble {
  const lastWritten = new Map<string, { at: number; since: number }>();
  const counts = new Map<string, TroubleCount>();
  return {
    report(provider, problem, fails) {
      const countKey = `${provider}\0${problem.host}\0${problem.kind}`;
      const counted = counts.get(countKey) ?? { provider, host: problem.host, problem: problem.kind, count: 0 };
      counted.count++;
      counts.set(countKey, counted);

      const key = `${countKey}\0${sameProblem(problem.reply)}`;
      const last = lastWritten.get(key);
      if (last && now() - last.at < TROUBLE_LOG_WINDOW_MS) {
        last.since++;
        return;
      }
      lastWritten.delete(key); // re-inserted last: the map's order is the order of writing
      if (lastWritten.size >= MAX_REMEMBERED) lastWritten.delete(lastWritten.keys().next().value!);
      lastWritten.set(key, { at: now(), since: 0 });
      const fields = { provider, host: problem.host, problem: problem.kind, reply: problem.reply, occurrences: (last?.since ?? 0) + 1 };
      const message = `${WHAT[problem.kind]}${fails ? '; recipients fail' : '; recipients are retried'} (logged once a minute while it lasts)`;
      if (fails) logger.error(fields, message);
      else logger.warn(fields, message);
    },
    counts: () => [...counts.values()].map((c) => ({ ...c })),
  };
}
