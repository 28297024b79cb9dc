import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from './helpers/test-app.js';

describe('group commit (store.transaction)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const suppression = (email: string) => ({ workspace_id: t.workspaceId, email, reason: 'manual', source_message_id: null, created_at: new Date().toISOString() });
  const stored = async (prefix: string) =>
    (await t.db.selectFrom('suppressions').select('email').where('email', 'like', `${prefix}%`).orderBy('email').execute()).map((r) => r.email);

  it('commits concurrent transactions together, rolling back only the one that failed', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        t.store.transaction(async (repos) => {
          await repos.suppressions.add(suppression(`group-${String(i).padStart(2, '0')}-a@example.com`));
          await repos.suppressions.add(suppression(`group-${String(i).padStart(2, '0')}-b@example.com`));
          if (i === 7) throw new Error('work 7 fails after writing');
          return i;
        }),
      ),
    );
    assert.deepEqual(results.map((r) => r.status === 'fulfilled' ? r.value : (r.reason as Error).message), [
      0, 1, 2, 3, 4, 5, 6, 'work 7 fails after writing', 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
    ]);
    const emails = await stored('group-');
    assert.equal(emails.length, 38);
    assert.ok(!emails.some((e) => e.startsWith('group-07')), 'the failed work left nothing behind');
  });

  it('rolls back a transaction that runs alone', async () => {
    await assert.rejects(
      t.store.transaction(async (repos) => {
        await repos.suppressions.add(suppression('alone@example.com'));
        throw new Error('alone fails');
      }),
      /alone fails/,
    );
    assert.deepEqual(await stored('alone'), []);
  });

  it('resolves only after the writes are committed and visible to other readers', async () => {
    await t.store.transaction((repos) => repos.suppressions.add(suppression('visible@example.com')));
    assert.deepEqual(await stored('visible'), ['visible@example.com']);
  });
});
