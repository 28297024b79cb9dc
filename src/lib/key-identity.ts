/** What a request's API key is once authenticated: shared by the API's guard, the send rules and SMTP submission. */
import type { ApiKeyPermission } from '../db/schema.js';

export interface AuthenticatedKey {
  keyId: string;
  workspaceId: string;
  permission: ApiKeyPermission;
  /** The only domain the key may send from, or null for any. */
  domainId: string | null;
}

/**
 * The API key a send is made with, if any: `id` is checked again as the send is written (a send of a key
 * deleted meanwhile is not written, and answers 401); `domainId`, the one domain it may send from (null: any).
 */
export interface SendingKey {
  id: string;
  domainId: string | null;
}
