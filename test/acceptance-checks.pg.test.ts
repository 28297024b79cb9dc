import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createTestApp, type TestApp } from './helpers/test-app.js';

// PostgreSQL by nature (row locks): scripts/run-tests.ts runs this file in the PostgreSQL pass only.
describe('acceptance checks hold what they found until the transaction ends', () => {
  let t: TestApp;
  let admin: pg.Client;
  before(async () => {
    t = await createTestApp({}, { store: 'postgres' });
    admin = new pg.Client({ connectionString: t.storeEnv.DATABASE_URL });
    await admin.connect();
    await admin.query("set lock_timeout = '300ms'");
  });
  after(async () => {
    await admin.end();
    await t.close();
  });

  it('a key deleted or a domain unverified meanwhile waits for the commit of the sends that found them', async () => {
    const now = new Date().toISOString();
    await t.store.domains.insert({
      id: 'dom_held', workspace_id: t.workspaceId, domain: 'held.example', status: 'verified', dkim_selector: 's', dkim_private_key: 'x', dkim_public_key: 'y',
      return_path_domain: 'mr-bounces.held.example', verification_error: null, created_at: now, verified_at: now, last_checked_at: now, upstream_ids: null, open_tracking: 0, click_tracking: 0, tracking_domain: null, tracking_domain_status: null,
    });
    const { id: keyId } = await t.db.selectFrom('api_keys').select('id').where('workspace_id', '=', t.workspaceId).executeTakeFirstOrThrow();
    const lockNotAvailable = { code: '55P03' };

    await t.store.transaction(async (repos) => {
      const holds = await repos.acceptanceChecks.hold({ keyIds: [keyId], domainIds: ['dom_held'], addresses: new Map([[t.workspaceId, ['a@example.com']]]) });
      assert.deepEqual([[...holds.liveKeys], [...holds.verifiedDomains]], [[keyId], ['dom_held']]);
      await assert.rejects(admin.query('delete from api_keys where id = $1', [keyId]), lockNotAvailable);
      await assert.rejects(admin.query("update domains set status = 'failed' where id = $1", ['dom_held']), lockNotAvailable);
    });
    // Committed: free again.
    assert.equal((await admin.query("update domains set status = 'failed' where id = $1", ['dom_held'])).rowCount, 1);
    assert.equal((await admin.query('delete from api_keys where id = $1', [keyId])).rowCount, 1);
  });
});
