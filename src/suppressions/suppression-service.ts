import { NotFoundError, ValidationError } from '../lib/errors.js';
import { nowIso } from '../lib/ids.js';
import type { Store } from '../db/store.js';
import type { SuppressionFilter, SuppressionRow } from './suppressions-repository.js';
import { hasControlCharacters, isValidAddress, normalizeAddress } from '../lib/email-address.js';

/**
 * Why an address is on the list: a hard bounce or a complaint (added by
 * Mailroom itself when one comes back), or `manual` (added through the API).
 */
export const SUPPRESSION_REASONS = ['hard_bounce', 'complaint', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export interface SuppressionView {
  /** Lower-cased address. */
  email: string;
  reason: string;
  /** The message whose bounce or complaint listed the address; null for a manual entry. */
  source_message_id: string | null;
  created_at: string;
}

export interface SuppressionQuery extends SuppressionFilter {
  limit: number;
  offset: number;
}

/** The body of POST /v1/suppressions once its JSON types are checked. */
export interface SuppressionInput {
  email: string;
  reason?: string | undefined;
}

function view(row: SuppressionRow): SuppressionView {
  return { email: row.email, reason: row.reason, source_message_id: row.source_message_id, created_at: row.created_at };
}

const notFound = () => new NotFoundError('Suppression not found');

/** A bare address, validated as the send path validates a recipient's, then lower-cased as the list stores it. */
function addressOrThrow(value: string): string {
  if (hasControlCharacters(value)) throw new ValidationError('email must not contain line breaks or control characters');
  const address = value.trim();
  if (!isValidAddress(address)) throw new ValidationError(`email must be a valid email address (got ${JSON.stringify(value)})`);
  return normalizeAddress(address);
}

export function createSuppressionService(store: Store) {
  return {
    /** A page of entries, newest first, and how many match in all, read from one snapshot. */
    async list(workspaceId: string, query: SuppressionQuery): Promise<{ entries: SuppressionView[]; total: number }> {
      const filter = { reason: query.reason };
      const [rows, total] = await store.snapshot((repos) =>
        Promise.all([repos.suppressions.list(workspaceId, filter, query.limit, query.offset), repos.suppressions.count(workspaceId, filter)]),
      );
      return { entries: rows.map(view), total };
    },

    /** `email` as given in the path: compared lower-cased, as every address on the list is stored. */
    async get(workspaceId: string, email: string): Promise<SuppressionView> {
      const row = await store.suppressions.find(workspaceId, normalizeAddress(email));
      if (!row) throw notFound();
      return view(row);
    },

    /** Takes the address off the list: sends to it are delivered again. */
    async remove(workspaceId: string, email: string): Promise<{ email: string; deleted: true }> {
      const address = normalizeAddress(email);
      if (!(await store.suppressions.delete(workspaceId, address))) throw notFound();
      return { email: address, deleted: true };
    },

    /**
     * Puts an address on the list by hand (`manual`: bounces and complaints are
     * listed by Mailroom itself). Idempotent: an address already listed keeps
     * its entry unchanged, and `created` says which of the two happened.
     */
    async add(workspaceId: string, input: SuppressionInput): Promise<{ entry: SuppressionView; created: boolean }> {
      const email = addressOrThrow(input.email);
      const reason = input.reason ?? 'manual';
      if (reason !== 'manual') {
        throw new ValidationError(`reason must be manual: hard_bounce and complaint entries are added by Mailroom itself (got ${JSON.stringify(reason)})`);
      }
      // Insert-or-keep, then read what is there. A concurrent delete between the two
      // (the only way the read can miss) makes the next round insert again.
      for (let round = 0; round < 3; round++) {
        const created = await store.suppressions.insertIfAbsent({ workspace_id: workspaceId, email, reason, source_message_id: null, created_at: nowIso() });
        const row = await store.suppressions.find(workspaceId, email);
        if (row) return { entry: view(row), created };
      }
      throw new Error(`Suppression of ${email} was deleted as fast as it was added, three times over`);
    },
  };
}
