import type { ApiKeyScope } from '../../api-keys/index.js';
import type { Services } from '../../composition/index.js';
import { listPage, type ListPaging, type ResendList } from './list-page.js';

export interface ResendApiKey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/** Resend's API-key routes on /v1's key service: the same scopes (`permission`, `domain_id`), Resend's field names. */
export function createResendApiKeys(services: Pick<Services, 'apiKeys'>) {
  const apiKeys = services.apiKeys;
  return {
    async list(workspaceId: string, paging: ListPaging): Promise<ResendList<ResendApiKey>> {
      const keys = (await apiKeys.list(workspaceId)).map(({ id, name, created_at, last_used_at }) => ({ id, name, created_at, last_used_at }));
      return listPage(keys, paging);
    },
    /** `token` is the full key, shown this once, as /v1's `key`. */
    async create(workspaceId: string, name: string, scope: ApiKeyScope): Promise<{ id: string; token: string }> {
      const created = await apiKeys.create(workspaceId, name, scope);
      return { id: created.id, token: created.key };
    },
    /** As under /v1, the workspace's last full_access key stays (409). */
    async remove(workspaceId: string, id: string): Promise<{ object: 'api_key'; id: string; deleted: boolean }> {
      await apiKeys.remove(workspaceId, id, { keepFullAccess: true });
      return { object: 'api_key', id, deleted: true };
    },
  };
}
