import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { mailroomCommand as mailroom } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';

describe('the PostgreSQL store a mailroom command uses', () => {
  const made: FreshStore[] = [];
  after(() => Promise.all(made.map((store) => store.drop())));

  it('is named by DATABASE_URL with its password masked, in the user part or as a parameter, in a refusal and in use', async () => {
    // Trust authentication here accepts any password: the URLs carry one, as a production one does.
    const withPassword: ((url: URL) => void)[] = [(url) => (url.password = 'hunter2'), (url) => url.searchParams.set('password', 'hunter2')];
    for (const give of withPassword) {
      const store = await freshStore('postgres');
      made.push(store);
      const url = new URL(store.env.DATABASE_URL!);
      give(url);
      const masked = `${url.toString().replace('hunter2', '********')} (DATABASE_URL)`;
      const env = { ...store.env, DATABASE_URL: url.toString() };
      const refused = mailroom(['workspace', 'list'], env);
      assert.equal(refused.status, 1);
      assert.equal(refused.stderr, `mailroom: There is no store at ${masked}, and this command does not make one: set DATABASE_URL to the store the server uses, or make this one with mailroom migrate (or mailroom serve)\n`);
      const migrated = mailroom(['migrate'], env);
      assert.deepEqual([migrated.status, migrated.stderr], [0, `mailroom: creating store ${masked}\n`]);
      const listed = mailroom(['workspace', 'list'], env);
      assert.deepEqual([listed.status, listed.stderr], [0, `mailroom: using store ${masked}\n`]);
      for (const output of [refused.stdout, refused.stderr, migrated.stdout, migrated.stderr, listed.stdout, listed.stderr]) assert.ok(!output.includes('hunter2'));
    }
  });
});
