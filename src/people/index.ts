export { createUserService, MEMBER_ROLES, type CreatedUser, type NewUser } from './user-service.js';
export { checkNewPassword, hashPassword, verifyPassword, MIN_PASSWORD_LENGTH } from './password.js';
export {
  createSessionService,
  LOCKOUT_FAILURES,
  LOCKOUT_WINDOW_MS,
  SESSION_IDLE_MS,
  SESSION_LIFETIME_MS,
  SIGN_IN_ATTEMPTS_PER_CLIENT,
  SIGN_IN_CLIENT_LIMITED,
  SIGN_IN_LOCKED,
  SIGN_IN_REFUSED,
  type Session,
  type SignedIn,
} from './session-service.js';
export { HASHING_BUSY, MAX_HASHES_AT_ONCE, MAX_HASHES_WAITING, passwordHashing } from './password-hashing.js';
export { createSetupService, SETUP_DONE, SETUP_LINK_REFUSED, SETUP_LINK_TTL_MS, type FirstAdmin } from './setup-service.js';
export { can, requireAbility, type Ability } from './roles.js';
export { createMemberService, LAST_ADMIN } from './member-service.js';
export { createInvitationService, ALREADY_MEMBER, INVITATION_NOT_FOUND, INVITATION_REFUSED, INVITATION_TTL_MS, type CreatedInvitation } from './invitation-service.js';
export { createInvitationsRepository } from './invitations-repository.js';
export { createMembersRepository } from './members-repository.js';
export { createSessionsRepository } from './sessions-repository.js';
export { createUsersRepository } from './users-repository.js';
export { createWorkspaceService } from './workspace-service.js';
export { createWorkspacesRepository } from './workspaces-repository.js';
