import type { MemberRole } from '../db/schema.js';
import { ForbiddenError } from '../lib/errors.js';

/**
 * What each role may do in a workspace (issue 14): everyone reads; admins and
 * developers configure sending (API keys, domains, webhooks, suppressions);
 * admins alone manage the workspace itself (members, settings). The one place
 * that says so; the dashboard's routes name the ability they need.
 */
export type Ability = 'read' | 'configure' | 'manage';

const ROLES_ABLE_TO: Record<Ability, readonly MemberRole[]> = {
  read: ['admin', 'developer', 'viewer'],
  configure: ['admin', 'developer'],
  manage: ['admin'],
};

export function can(role: MemberRole, ability: Ability): boolean {
  return ROLES_ABLE_TO[ability].includes(role);
}

/** Refuses (403) what `role` may not do. */
export function requireAbility(role: MemberRole, ability: Ability): void {
  if (!can(role, ability)) throw new ForbiddenError(`A ${role} of this workspace cannot do this`);
}
