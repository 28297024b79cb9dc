import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isUniqueViolation } from '../src/db/unique-violation.js';
import { ConflictError, ValidationError } from '../src/lib/errors.js';
import { newId, nowIso } from '../src/lib/ids.js';
import { hashPassword, verifyPassword } from '../src/people/index.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const PASSWORD = 'correct horse 7';

describe('passwords (people/password.ts)', () => {
  it('keeps a salted scrypt hash in PHC form that verifies the password and nothing else', async () => {
    const [a, b] = [await hashPassword(PASSWORD), await hashPassword(PASSWORD)];
    assert.match(a, /^\$scrypt\$ln=15,r=8,p=3\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    assert.notEqual(a, b, 'each hash has its own salt');
    assert.ok(!a.includes(PASSWORD));
    assert.equal(await verifyPassword(PASSWORD, a), true);
    assert.equal(await verifyPassword('correct horse 8', a), false);
    assert.equal(await verifyPassword(PASSWORD.toUpperCase(), a), false);
  });

  it('verifies a hash made with other parameters, as one made before a change of cost would be', async () => {
    // N = 2^14, r = 8, p = 1 of "correct horse 7" with a fixed salt, made by node:crypto's scrypt directly.
    const { scryptSync } = await import('node:crypto');
    const salt = Buffer.alloc(16, 7);
    const key = scryptSync(PASSWORD, salt, 32, { N: 2 ** 14, r: 8, p: 1 });
    const stored = `$scrypt$ln=14,r=8,p=1$${salt.toString('base64').replace(/=+$/, '')}$${key.toString('base64').replace(/=+$/, '')}`;
    assert.equal(await verifyPassword(PASSWORD, stored), true);
    assert.equal(await verifyPassword('not the password', stored), false);
  });

  it('answers false, without throwing, for a stored value it did not make', async () => {
    for (const stored of ['', PASSWORD, '$scrypt$ln=15,r=8,p=3$AAAA$', '$scrypt$ln=40,r=8,p=3$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA']) {
      assert.equal(await verifyPassword(PASSWORD, stored), false, stored);
    }
  });
});

describe('creating users (people/user-service.ts)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('creates a user who is a member of a workspace with the role given', async () => {
    const user = await t.services.users.create({ email: ' Ada@Example.com ', password: PASSWORD, workspaceId: t.workspaceId, role: 'developer' });
    assert.match(user.id, /^usr_[0-9a-z]{26}$/);
    assert.deepEqual(user, { id: user.id, email: 'Ada@Example.com', memberships: [{ workspace_id: t.workspaceId, role: 'developer' }] });
    const stored = await t.store.users.findByEmail('ada@example.COM');
    assert.equal(stored?.id, user.id, 'found whatever the case');
    assert.equal(await verifyPassword(PASSWORD, stored!.password_hash), true);
    assert.deepEqual(await t.store.users.membershipsOf(user.id), [{ workspace_id: t.workspaceId, role: 'developer' }]);
  });

  it('creates a user of no workspace yet', async () => {
    const user = await t.services.users.create({ email: 'grace@example.com', password: PASSWORD });
    assert.deepEqual(user.memberships, []);
    assert.deepEqual(await t.store.users.membershipsOf(user.id), []);
  });

  it('refuses the same address in another case, and keeps the first user as they were', async () => {
    const before = await t.store.users.count();
    await assert.rejects(t.services.users.create({ email: 'ADA@example.com', password: 'another password' }), (error: Error) => {
      assert.ok(error instanceof ConflictError);
      assert.equal(error.message, 'A user with the e-mail address ADA@example.com exists');
      return true;
    });
    assert.equal(await t.store.users.count(), before);
    assert.equal(await verifyPassword(PASSWORD, (await t.store.users.findByEmail('ada@example.com'))!.password_hash), true);
  });

  it('lets one of two simultaneous sign-ups with one address through, and refuses the other as a conflict', async () => {
    const results = await Promise.allSettled([
      t.services.users.create({ email: 'twice@example.com', password: PASSWORD }),
      t.services.users.create({ email: 'Twice@example.com', password: PASSWORD }),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.ok(refused.reason instanceof ConflictError, String(refused.reason));
  });

  it("has the store itself refuse a second row for an address in another case, an error the service reads as a conflict", async () => {
    const row = (email: string) => ({ id: newId('usr'), email, password_hash: 'x', created_at: nowIso(), updated_at: nowIso() });
    await t.store.users.insert(row('race@example.com'));
    const error = await t.store.users.insert(row('RACE@example.com')).then(() => undefined, (e: unknown) => e);
    assert.ok(error !== undefined, 'the unique index on lower(email) refuses it');
    assert.equal(isUniqueViolation(error), true, String(error));
    assert.equal(isUniqueViolation(new Error('something else')), false);
  });

  const refusals: [string, Parameters<TestApp['services']['users']['create']>[0] | (() => Parameters<TestApp['services']['users']['create']>[0]), string][] = [
    ['an address that is not one', { email: 'ada at example.com', password: PASSWORD }, 'email must be an e-mail address, such as ada@example.com'],
    ['a password of 9 characters', { email: 'short@example.com', password: '123456789' }, 'password must be at least 10 characters long'],
    ['a password of 9 characters that takes 10 code units', { email: 'short@example.com', password: '12345678😀' }, 'password must be at least 10 characters long'],
    ['a role without a workspace', { email: 'r@example.com', password: PASSWORD, role: 'admin' }, 'A workspace and a role go together: give both or neither'],
    ['a workspace without a role', () => ({ email: 'r@example.com', password: PASSWORD, workspaceId: t.workspaceId }), 'A workspace and a role go together: give both or neither'],
    ['an unknown role', () => ({ email: 'r@example.com', password: PASSWORD, workspaceId: t.workspaceId, role: 'owner' }), 'role must be one of admin, developer, viewer'],
    ['an unknown workspace', { email: 'r@example.com', password: PASSWORD, workspaceId: 'ws_01jx9c1r7t5b2n4m6p8q0r2s4t', role: 'viewer' }, 'No workspace ws_01jx9c1r7t5b2n4m6p8q0r2s4t'],
  ];
  for (const [what, input, message] of refusals) {
    it(`refuses ${what}, and writes nothing`, async () => {
      const before = await t.store.users.count();
      await assert.rejects(t.services.users.create(typeof input === 'function' ? input() : input), (error: Error) => {
        assert.ok(error instanceof ValidationError, String(error));
        assert.equal(error.message, message);
        return true;
      });
      assert.equal(await t.store.users.count(), before);
    });
  }
});
