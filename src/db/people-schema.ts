/** The dashboard's people as Kysely sees their tables (migrations 0011–0014); part of `Database` in schema.ts. */

/** A person who signs in to the dashboard. */
export interface UsersTable {
  id: string;
  /** As given (trimmed); unique whatever its case. */
  email: string;
  /** scrypt, in PHC string form (people/password.ts). The password itself is never stored. */
  password_hash: string;
  created_at: string;
  updated_at: string;
}

/** What a user may do in a workspace: admin (everything), developer (keys, domains, webhooks, suppressions), viewer (reads). */
export type MemberRole = 'admin' | 'developer' | 'viewer';

/** A user's place in a workspace. */
export interface WorkspaceMembersTable {
  workspace_id: string;
  user_id: string;
  role: MemberRole;
  created_at: string;
}

/** A signed-in browser: the cookie holds a random token, the store only its hash. */
export interface SessionsTable {
  /** SHA-256 of the session token, hex. */
  token_hash: string;
  user_id: string;
  /** Sent back in a header by every state-changing request of this session. */
  csrf_token: string;
  /** The absolute expiry counts from here. */
  created_at: string;
  /** The idle expiry counts from here; moved forward at most once a minute. */
  last_seen_at: string;
}

/** A failed sign-in, for the lock-out. */
export interface SignInFailuresTable {
  /** As typed, lower-cased: the lock-out holds whether or not a user has this address. */
  email: string;
  client_address: string;
  failed_at: string;
}

/** A first-run setup link: valid until expires_at, once. */
export interface SetupTokensTable {
  /** SHA-256 of the token in the link, hex. */
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A link that lets whoever opens it join a workspace with a role: pending until accepted, revoked or expired. */
export interface InvitationsTable {
  id: string;
  workspace_id: string;
  role: MemberRole;
  /** SHA-256 of the token in the link, hex. The token itself is shown once, to the admin who made it. */
  token_hash: string;
  /** The admin who made it. */
  created_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  /** The user who joined with it; null while pending (or when that user was deleted since). */
  accepted_by: string | null;
  revoked_at: string | null;
  revoked_by: string | null;
}
