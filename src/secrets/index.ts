/** The server's secrets: the key sealing them at rest and the sealed values (rotation runs over the whole store: composition/rotate-secrets.ts). */
export { keyFileOf, readKeyFile, unlinkIfPresent, newKeyText, nextKeyFileOf, promoteNextKeyFile, writeNextKeyFile } from './key-file.js';
export { KEY_CHECK_NAME, openSecretKey, opensKeyCheck, keyCheckValue } from './secret-key.js';
export { createServerSecretsRepository } from './server-secrets-repository.js';
export { RETURN_PATH_KEY_NAME, createStoredSecretsRepository, type StoredSecret } from './stored-secrets-repository.js';
