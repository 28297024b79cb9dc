import { hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import type { Store } from '../db/store.js';
import { createSecretBox, RETURN_PATH_KEY } from '../lib/secret-box.js';
import { RETURN_PATH_KEY_NAME } from '../secrets/index.js';

const KEY_BYTES = 32;
const INFO = 'mailroom return-path key v1';

/**
 * The keys return paths are signed and checked with (return-path.ts), the
 * first one signing: 32 random bytes made by the first process that needs
 * them and kept in the store (`server_secrets`), sealed under the
 * installation's key, so every process (serve, worker, on any machine) signs
 * and checks alike, and `secrets rotate` re-encrypts it without changing it:
 * return paths already out keep being honoured. The second, derived from the
 * installation's key (HKDF-SHA256), only checks: versions before the key was
 * always there signed with it when MAILROOM_SECRET_KEY was set.
 */
export async function loadReturnPathKeys(store: Pick<Store, 'serverSecrets'>, secretKey: KeyObject): Promise<Buffer[]> {
  const box = createSecretBox(secretKey, RETURN_PATH_KEY);
  let stored = await store.serverSecrets.find(RETURN_PATH_KEY_NAME);
  if (!stored) {
    await store.serverSecrets.insertIfAbsent({ name: RETURN_PATH_KEY_NAME, value: box.seal(randomBytes(KEY_BYTES).toString('base64')), created_at: new Date().toISOString() });
    stored = await store.serverSecrets.find(RETURN_PATH_KEY_NAME);
  }
  const derived = Buffer.from(hkdfSync('sha256', secretKey.export(), Buffer.alloc(0), INFO, KEY_BYTES));
  return [Buffer.from(box.open(stored!.value), 'base64'), derived];
}
