import assert from 'node:assert/strict';
import type { Db } from '../../src/db/database.js';

/** A call to a running Mailroom's API with the workspace's key: status, parsed body, headers. */
export async function apiCall(base: string, apiKey: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as { success: boolean; data: any; error?: string }) : undefined, headers: res.headers, text };
}

export interface UpstreamSpec {
  name: string;
  type: 'smtp' | 'ses';
  url?: string;
  starttls?: 'opportunistic' | 'required' | 'never';
  region?: string;
  access_key_id?: string;
  secret_access_key?: string;
  endpoint?: string;
}

/**
 * The workspace's upstreams, made through POST /v1/upstreams, and the domain routed through them in
 * that order (PATCH /v1/domains/{id}): the way a customer sets a route up. Returns their ids.
 */
export async function routeDomain(base: string, apiKey: string, domainId: string, specs: UpstreamSpec[]): Promise<string[]> {
  const ids: string[] = [];
  for (const spec of specs) {
    const made = await apiCall(base, apiKey, 'POST', '/v1/upstreams', spec);
    assert.equal(made.status, 201, made.text);
    ids.push(made.json!.data.id);
  }
  const patched = await apiCall(base, apiKey, 'PATCH', `/v1/domains/${domainId}`, { upstream_ids: ids });
  assert.equal(patched.status, 200, patched.text);
  assert.deepEqual(patched.json!.data.upstream_ids, ids);
  return ids;
}

/** GET /v1/upstreams/{id}'s `health`. */
export async function healthOf(base: string, apiKey: string, id: string): Promise<string> {
  const got = await apiCall(base, apiKey, 'GET', `/v1/upstreams/${id}`);
  assert.equal(got.status, 200, got.text);
  return got.json!.data.health as string;
}

/** The delivery attempts of these messages in the order they were written, as the outcome recorder wrote them (the API's attempts do not name the upstream). */
export async function attemptsOf(db: Db, messageIds: string[]) {
  const rows = [];
  for (let i = 0; i < messageIds.length; i += 500) {
    rows.push(
      ...(await db
        .selectFrom('delivery_attempts')
        .select(['message_id', 'recipient', 'attempt', 'outcome', 'upstream', 'provider', 'detail'])
        .where('message_id', 'in', messageIds.slice(i, i + 500))
        .orderBy('id')
        .execute()),
    );
  }
  return rows.map((r) => ({ ...r, attempt: Number(r.attempt) }));
}

/** The `send` log entries' statuses of these messages, counted. */
export async function statusCounts(db: Db, messageIds: string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < messageIds.length; i += 500) {
    const rows = await db.selectFrom('log_entries').select('status').where('type', '=', 'send').where('message_id', 'in', messageIds.slice(i, i + 500)).execute();
    for (const { status } of rows) counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

/** Counts of each value: how often each Message-ID arrived, say. */
export function countsOf(values: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}
