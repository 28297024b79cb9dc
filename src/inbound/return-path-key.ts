import { hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import type { Store } from '../repositories/index.js';

const NAME = 'return_path_key';
const KEY_BYTES = 32;
const INFO = 'mailroom return-path key v1';

/**
 * The keys return paths are signed and checked with (return-path.ts), the
 * first one signing:
 * - with MAILROOM_SECRET_KEY set, a key derived from it (HKDF-SHA256), so no
 *   copy of it is stored anywhere; and the stored key below, if an earlier
 *   run made one, to check return paths signed before the secret was set;
 * - without it, 32 random bytes made by the first process that needs them
 *   and kept in the store (`server_secrets`), so every process (serve,
 *   worker, on any machine) signs and checks alike.
 * A MAILROOM_SECRET_KEY changed later only means that return paths signed
 * under the old one stop being honoured; nothing stops starting.
 */
export async function loadReturnPathKeys(store: Pick<Store, 'serverSecrets'>, secretKey: KeyObject | undefined): Promise<Buffer[]> {
  let stored = await store.serverSecrets.find(NAME);
  if (secretKey) {
    const derived = Buffer.from(hkdfSync('sha256', secretKey.export(), Buffer.alloc(0), INFO, KEY_BYTES));
    return stored ? [derived, Buffer.from(stored.value, 'base64')] : [derived];
  }
  if (!stored) {
    await store.serverSecrets.insertIfAbsent({ name: NAME, value: randomBytes(KEY_BYTES).toString('base64'), created_at: new Date().toISOString() });
    stored = await store.serverSecrets.find(NAME);
  }
  return [Buffer.from(stored!.value, 'base64')];
}
