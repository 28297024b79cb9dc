/**
 * Whether a store refused a write for breaking a unique index: PostgreSQL's
 * SQLSTATE 23505, better-sqlite3's SQLITE_CONSTRAINT_UNIQUE (and _PRIMARYKEY).
 * For writes whose uniqueness a check beforehand cannot guarantee: two
 * requests may both pass the check and race to the insert.
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
