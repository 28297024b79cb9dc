import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import * as contentExpiryMark from '../src/db/migrations/0024-content-expiry-mark.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

describe('migration 0024: the content pass keeps its place', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const markAfterUp = async (): Promise<string | undefined> => {
    const db = t.db as unknown as Kysely<unknown>;
    await contentExpiryMark.up(db);
    const row = await t.db.selectFrom('retention_marks').select('after_id').where('name', '=', 'content').executeTakeFirst();
    await contentExpiryMark.down(db);
    return row?.after_id;
  };

  it('starts after the last message before the first whose content is kept, so earlier passes are not walked again', async () => {
    await contentExpiryMark.down(t.db as unknown as Kysely<unknown>);
    assert.equal(await markAfterUp(), '', 'an empty store: from the start');

    const insert = async (id: string, expired: boolean) =>
      sql`insert into messages (id, workspace_id, from_name, from_address, subject, text, recipients, created_at, content_expired_at)
        values (${id}, ${t.workspaceId}, '', 'a@example.com', 's', ${expired ? null : 't'}, '[]', '2030-01-01T00:00:00.000Z', ${expired ? '2030-02-01T00:00:00.000Z' : null})`.execute(t.db);
    await insert('msg_a1', true);
    await insert('msg_a2', true);
    assert.equal(await markAfterUp(), 'msg_a2', 'every content expired: after the last message');
    await insert('msg_a3', false);
    await insert('msg_a4', true);
    assert.equal(await markAfterUp(), 'msg_a2', 'before the first message whose content is kept');
    await t.db.deleteFrom('messages').where('id', 'in', ['msg_a1', 'msg_a2']).execute();
    assert.equal(await markAfterUp(), '', 'the first message kept: from the start');

    await contentExpiryMark.up(t.db as unknown as Kysely<unknown>);
  });
});
