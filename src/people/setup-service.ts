import { ConflictError, ValidationError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import type { Store } from '../db/store.js';
import { insertWorkspace, workspaceNameOf } from './workspace-service.js';
import { checkNewPassword, hashPassword } from './password.js';
import { accountEmailOf } from './user-service.js';
import { newSecretToken, secretHash } from '../lib/secret-token.js';

/** How long a first-run setup link works. */
export const SETUP_LINK_TTL_MS = 60 * 60_000;

export const SETUP_LINK_REFUSED = 'This setup link has expired or was used already: restart Mailroom for a new one';
export const SETUP_DONE = 'Mailroom has users already: sign in instead';

export interface FirstAdmin {
  token: string;
  email: string;
  password: string;
  workspaceName: string;
}

/**
 * The first run: while no one can sign in, each start of `serve` issues a
 * link (in place of any earlier unused one) with which the first person
 * creates an admin account and a workspace, once, within an hour.
 */
export function createSetupService(store: Store, now: () => Date = () => new Date()) {
  return {
    /** A new setup token when Mailroom has no users; undefined when it has. */
    async issueIfNoUsers(): Promise<string | undefined> {
      if ((await store.users.count()) > 0) return undefined;
      const token = newSecretToken();
      const at = now();
      await store.sessions.replaceSetupTokens({ token_hash: secretHash(token), created_at: at.toISOString(), expires_at: new Date(at.getTime() + SETUP_LINK_TTL_MS).toISOString(), used_at: null });
      return token;
    },

    /**
     * Creates the first admin and their workspace (with its first API key),
     * using up the link: all of it, or nothing. A link that expired or was
     * used, or a Mailroom that has users by now, is refused, before any
     * scrypt work: anyone may call this, long after the first run too.
     */
    async createFirstAdmin(input: FirstAdmin): Promise<{ user: { id: string; email: string }; workspace: { id: string; name: string }; apiKey: string }> {
      const email = accountEmailOf(input.email);
      checkNewPassword(input.password);
      const name = workspaceNameOf(input.workspaceName, 'workspace_name');
      const tokenHash = secretHash(input.token);
      if (!(await store.sessions.setupTokenUsable(tokenHash, now().toISOString()))) throw new ValidationError(SETUP_LINK_REFUSED);
      if ((await store.users.count()) > 0) throw new ConflictError(SETUP_DONE);
      const passwordHash = await hashPassword(input.password);
      return store.transaction(async (repos) => {
        const at = now().toISOString();
        // Again, to the letter: the link may have been used, or a user made, while the password was hashed.
        if (!(await repos.sessions.useSetupToken(tokenHash, at))) throw new ValidationError(SETUP_LINK_REFUSED);
        if ((await repos.users.count()) > 0) throw new ConflictError(SETUP_DONE);
        const workspace = await insertWorkspace(repos, name);
        const user = { id: newId('usr'), email, password_hash: passwordHash, created_at: at, updated_at: at };
        await repos.users.insert(user);
        await repos.users.addMember({ workspace_id: workspace.workspace_id, user_id: user.id, role: 'admin', created_at: at });
        return { user: { id: user.id, email }, workspace: { id: workspace.workspace_id, name }, apiKey: workspace.api_key };
      });
    },
  };
}
