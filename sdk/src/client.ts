import { ApiKeys } from './resources/api-keys.js';
import { Domains } from './resources/domains.js';
import { Emails } from './resources/emails.js';
import { Logs } from './resources/logs.js';
import { Stats } from './resources/stats.js';
import { Suppressions } from './resources/suppressions.js';
import { Webhooks } from './resources/webhooks.js';
import { Transport, type MailroomOptions } from './transport.js';

/**
 * The Mailroom API, one property per resource. Every call answers
 * `{data, error}` and never throws for what the API or the network did; 429s,
 * 5xx answers and network errors are retried as SPEC.md §8.1 advises.
 */
export class Mailroom {
  readonly emails: Emails;
  readonly logs: Logs;
  readonly stats: Stats;
  readonly domains: Domains;
  readonly apiKeys: ApiKeys;
  readonly webhooks: Webhooks;
  readonly suppressions: Suppressions;

  constructor(apiKey: string, options: MailroomOptions = {}) {
    const transport = new Transport(apiKey, options);
    this.emails = new Emails(transport);
    this.logs = new Logs(transport);
    this.stats = new Stats(transport);
    this.domains = new Domains(transport);
    this.apiKeys = new ApiKeys(transport);
    this.webhooks = new Webhooks(transport);
    this.suppressions = new Suppressions(transport);
  }
}
