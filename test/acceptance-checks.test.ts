import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { createAcceptanceChecksRepository } from '../src/sending/acceptance/acceptance-checks-repository.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

describe('acceptance checks (the look-ups of a batch of sends)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  /** The repository on a connection that counts the statements it runs (every result passes the plugin, compiled ahead or not). */
  function counted() {
    let statements = 0;
    const counter: KyselyPlugin = { transformQuery: (args) => args.node, transformResult: async (args) => (statements++, args.result) };
    return { checks: createAcceptanceChecksRepository(t.db.withPlugin(counter)), statements: () => statements };
  }

  const addDomain = async (id: string, workspaceId: string, status: 'verified' | 'failed') => {
    const now = new Date().toISOString();
    await t.store.domains.insert({
      id, workspace_id: workspaceId, domain: `${id}.example`, status, dkim_selector: 's', dkim_private_key: 'x', dkim_public_key: 'y',
      return_path_domain: `mr-bounces.${id}.example`, verification_error: null, created_at: now, verified_at: status === 'verified' ? now : null, last_checked_at: now, upstream_ids: null, open_tracking: 0, click_tracking: 0, tracking_domain: null, tracking_domain_status: null,
    });
  };
  const suppress = (workspaceId: string, email: string, reason: string) =>
    t.store.suppressions.add({ workspace_id: workspaceId, email, reason, source_message_id: null, created_at: new Date().toISOString() });
  const keyIdsOf = async (workspaceId: string) => (await t.db.selectFrom('api_keys').select('id').where('workspace_id', '=', workspaceId).execute()).map((r) => r.id);

  it('answers live keys, verified domains and each workspace\'s suppressions in one statement', async () => {
    const other = await t.newWorkspace('other');
    const [key] = await keyIdsOf(t.workspaceId);
    const [otherKey] = await keyIdsOf(other.workspaceId);
    await addDomain('dom_checked_ok', t.workspaceId, 'verified');
    await addDomain('dom_checked_failed', t.workspaceId, 'failed');
    await suppress(t.workspaceId, 'listed@example.com', 'hard_bounce');
    await suppress(other.workspaceId, 'other@example.com', 'complaint');
    await suppress(other.workspaceId, 'listed@example.com', 'manual');

    const { checks, statements } = counted();
    const holds = await checks.hold({
      keyIds: [key!, 'key_gone', otherKey!],
      domainIds: ['dom_checked_ok', 'dom_checked_failed', 'dom_gone'],
      addresses: new Map([
        [t.workspaceId, ['listed@example.com', 'free@example.com', 'other@example.com']],
        [other.workspaceId, ['other@example.com', 'listed@example.com']],
      ]),
    });
    assert.equal(statements(), 1);
    assert.deepEqual(holds.liveKeys, new Set([key, otherKey]));
    assert.deepEqual(holds.verifiedDomains, new Set(['dom_checked_ok']));
    assert.deepEqual(holds.suppressed, new Map([
      [t.workspaceId, new Map([['listed@example.com', 'hard_bounce']])],
      [other.workspaceId, new Map([['other@example.com', 'complaint'], ['listed@example.com', 'manual']])],
    ]));
  });

  it('looks up thousands of addresses of several workspaces in that one statement', async () => {
    const workspaces = [t.workspaceId, (await t.newWorkspace('a')).workspaceId, (await t.newWorkspace('b')).workspaceId];
    // 3 × 1,501 addresses, still one statement: each list is bound as one value (an array, or JSON on SQLite).
    const addresses = new Map(workspaces.map((id, w) => [id, [...Array.from({ length: 1500 }, (_, i) => `many${i}@example.com`), `only${w}@example.com`]]));
    const listed = new Map(workspaces.map((id, w) => [id, new Map([[`many${w}@example.com`, 'manual'], [`many${1499 - w}@example.com`, 'complaint']])]));
    for (const [workspaceId, emails] of listed) for (const [email, reason] of emails) await suppress(workspaceId, email, reason);
    await suppress(workspaces[1]!, 'many0@example.com', 'hard_bounce');
    // Listed in a workspace that does not look it up (the workspace that does has not listed it): found for neither.
    await suppress(workspaces[1]!, 'only0@example.com', 'hard_bounce');

    const { checks, statements } = counted();
    const [key] = await keyIdsOf(t.workspaceId);
    const holds = await checks.hold({ keyIds: [key!], domainIds: [], addresses });
    assert.equal(statements(), 1);
    assert.deepEqual(holds.liveKeys, new Set([key]));
    assert.deepEqual(holds.suppressed, new Map([...listed].map(([id, emails]) => [id, id === workspaces[1] ? new Map([...emails, ['many0@example.com', 'hard_bounce']]) : emails])));
  });

  it('runs no statement when there is nothing to look up', async () => {
    const { checks, statements } = counted();
    const holds = await checks.hold({ keyIds: [], domainIds: [], addresses: new Map() });
    assert.equal(statements(), 0);
    assert.deepEqual([holds.liveKeys.size, holds.verifiedDomains.size, holds.suppressed.size], [0, 0, 0]);
  });
});
