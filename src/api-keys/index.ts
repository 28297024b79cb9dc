/** API keys: issuing, listing, revoking and checking a workspace's keys, with their permission and domain scope. */
export { default as apiKeyRoutes, ApiKeyBody } from './api-key-routes.js';
export { API_KEY_PERMISSIONS, createApiKeyService, issueApiKey, MAX_KEY_NAME_LENGTH, type ApiKeyCreated, type ApiKeyScope, type AuthenticatedKey } from './api-key-service.js';
export { createApiKeysRepository } from './api-keys-repository.js';
