import { clientNetworkOf } from '../lib/client-network.js';
import { newSecretToken, secretHash } from '../lib/secret-token.js';
import { RateLimitError, UnauthorizedError, ValidationError } from '../lib/errors.js';
import type { Repositories, Store } from '../db/store.js';
import type { RateLimiter } from '../lib/rate-limiter.js';
import { checkNewPassword, hashPassword, verifyPassword } from './password.js';
import { passwordHashing } from './password-hashing.js';
import { hasControlCharacters } from '../lib/email-address.js';

const DAY_MS = 86_400_000;
/** A session unused this long ends (issue 14). */
export const SESSION_IDLE_MS = 7 * DAY_MS;
/** A session ends this long after sign-in, used or not. */
export const SESSION_LIFETIME_MS = 30 * DAY_MS;
/** last_seen_at is written at most this often: not a write per request. */
const TOUCH_EVERY_MS = 60_000;
/** Failed sign-ins for one address from one client within LOCKOUT_WINDOW_MS that lock further tries with 429. */
export const LOCKOUT_FAILURES = 10;
export const LOCKOUT_WINDOW_MS = 15 * 60_000;
/**
 * Sign-in attempts one client address may make within LOCKOUT_WINDOW_MS,
 * whatever accounts they name (one password tried on many accounts); each
 * counts from its start, so attempts made at once cannot slip past, and one
 * that succeeds is given back (a whole office signs in from one address).
 */
export const SIGN_IN_ATTEMPTS_PER_CLIENT = 20;

/** The one answer to a wrong password and to an unknown address: it must not tell them apart. */
export const SIGN_IN_REFUSED = 'Wrong e-mail address or password';
export const SIGN_IN_LOCKED = 'Too many failed sign-ins for this address: try again later';
export const SIGN_IN_CLIENT_LIMITED = 'Too many sign-in attempts from your network address: try again later';

/**
 * A hash of a random password nobody knows, with the parameters real hashes
 * have: an unknown address is checked against it, so that answering takes as
 * long as for a wrong password.
 */
const NOBODY = '$scrypt$ln=15,r=8,p=3$B2G8S7y54DmhJrQOqHTBRA$mEoJftkTJma1On4pN2wECNdx9We2FTI3fpOiUZEKP34';


export interface SignIn {
  email: string;
  password: string;
  /** The client's address, for the lock-out and the attempts per client (counted by its network: client-network.ts). */
  clientAddress: string;
}

export interface SignedIn {
  /** For the cookie, once: the store keeps only its hash. */
  token: string;
  csrfToken: string;
  user: { id: string; email: string };
}

export interface Session {
  tokenHash: string;
  userId: string;
  csrfToken: string;
}

async function openSession(sessions: Repositories['sessions'], userId: string, at: Date): Promise<{ token: string; csrfToken: string }> {
  const token = newSecretToken();
  const csrfToken = newSecretToken();
  await sessions.insert({ token_hash: secretHash(token), user_id: userId, csrf_token: csrfToken, created_at: at.toISOString(), last_seen_at: at.toISOString() });
  return { token, csrfToken };
}

/**
 * Sessions. `rateLimiter` counts each client address's sign-in attempts: in
 * Redis when configured, so that every process shares one budget.
 */
export function createSessionService(store: Store, rateLimiter: RateLimiter, now: () => Date = () => new Date()) {
  const attempts = (clientAddress: string) => `sign-in:${clientAddress}`;
  const windowSeconds = LOCKOUT_WINDOW_MS / 1000;

  /** The password check proper, once the client's attempt is counted. */
  async function check({ email, password, clientAddress }: SignIn): Promise<SignedIn> {
    const address = email.trim().toLowerCase();
    if (hasControlCharacters(address)) {
      // No user's address holds one (and PostgreSQL's text could not be asked about a NUL): refused as any unknown address, after the same work.
      await verifyPassword(password, NOBODY);
      throw new UnauthorizedError(SIGN_IN_REFUSED);
    }
    passwordHashing.refuseWhileFull();
    const at = now();
    const windowStart = new Date(at.getTime() - LOCKOUT_WINDOW_MS).toISOString();
    const failures = await store.sessions.failuresSince(address, clientAddress, windowStart);
    if (failures.length >= LOCKOUT_FAILURES) {
      const freedAt = Date.parse(failures[failures.length - LOCKOUT_FAILURES]!) + LOCKOUT_WINDOW_MS;
      throw new RateLimitError(Math.max(1, Math.ceil((freedAt - at.getTime()) / 1000)), SIGN_IN_LOCKED);
    }
    const user = await store.users.findByEmail(address);
    const matches = await verifyPassword(password, user?.password_hash ?? NOBODY);
    if (!user || !matches) {
      // One commit for its two statements: on SQLite each commit waits for the disk, on the thread answering HTTP.
      await store.transaction((repos) => repos.sessions.recordFailure(address, clientAddress, at.toISOString(), windowStart));
      throw new UnauthorizedError(SIGN_IN_REFUSED);
    }
    await store.sessions.clearFailures(address, clientAddress);
    return { ...(await openSession(store.sessions, user.id, at)), user: { id: user.id, email: user.email } };
  }

  return {
    /**
     * Checks the password and opens a session. An unknown address and a wrong
     * password answer the same, after the same scrypt work; LOCKOUT_FAILURES
     * of them for one address from one client within the window answer 429
     * until the oldest leaves it, right password or not. Before anything, the
     * client's attempt is counted: past SIGN_IN_ATTEMPTS_PER_CLIENT in the
     * window, 429 without a look at the password. An attempt that was not
     * refused (it succeeded, or found no hashing thread free) is given back.
     */
    async signIn(attempt: SignIn): Promise<SignedIn> {
      const input = { ...attempt, clientAddress: clientNetworkOf(attempt.clientAddress) };
      const counted = await rateLimiter.consume(attempts(input.clientAddress), SIGN_IN_ATTEMPTS_PER_CLIENT, windowSeconds);
      if (!counted.allowed) throw new RateLimitError(Math.max(1, counted.resetAt - Math.floor(Date.now() / 1000)), SIGN_IN_CLIENT_LIMITED);
      // A give-back the counters cannot take (Redis gone meanwhile) leaves the attempt counted, the safe side,
      // rather than turning a sign-in that was answered, and may have opened a session, into a 503.
      const giveBack = () => rateLimiter.refund(attempts(input.clientAddress), SIGN_IN_ATTEMPTS_PER_CLIENT, windowSeconds).catch(() => undefined);
      let signedIn: SignedIn;
      try {
        signedIn = await check(input);
      } catch (error) {
        // A refusal (a wrong password, an unknown address, a lock-out) keeps its count; anything else was no try at a password.
        const refusal = error instanceof UnauthorizedError || (error instanceof RateLimitError && error.message === SIGN_IN_LOCKED);
        if (!refusal) await giveBack();
        throw error;
      }
      await giveBack();
      return signedIn;
    },

    /** A session for a user who has just proved who they are another way (the first-run setup). */
    async openFor(user: { id: string; email: string }): Promise<SignedIn> {
      return { ...(await openSession(store.sessions, user.id, now())), user: { id: user.id, email: user.email } };
    },

    /** The session a token opens, if it has not ended; ending it (in the store too) when it has expired. */
    async authenticate(token: string): Promise<Session | undefined> {
      const tokenHash = secretHash(token);
      const row = await store.sessions.find(tokenHash);
      if (!row) return undefined;
      const at = now().getTime();
      if (at - Date.parse(row.created_at) >= SESSION_LIFETIME_MS || at - Date.parse(row.last_seen_at) >= SESSION_IDLE_MS) {
        await store.sessions.delete(tokenHash);
        return undefined;
      }
      if (at - Date.parse(row.last_seen_at) >= TOUCH_EVERY_MS) await store.sessions.touch(tokenHash, new Date(at).toISOString());
      return { tokenHash, userId: row.user_id, csrfToken: row.csrf_token };
    },

    async signOut(session: Pick<Session, 'tokenHash'>): Promise<void> {
      await store.sessions.delete(session.tokenHash);
    },

    /**
     * Changes the signed-in user's password, given the current one, and ends
     * every other session of theirs (a stolen cookie stops working); this one
     * goes on.
     */
    async changePassword(session: Session, currentPassword: string, newPassword: string): Promise<{ endedSessions: number }> {
      const user = await store.users.findById(session.userId);
      if (!user || !(await verifyPassword(currentPassword, user.password_hash))) throw new ValidationError('current_password is not your password');
      checkNewPassword(newPassword, 'new_password');
      const passwordHash = await hashPassword(newPassword);
      return store.transaction(async (repos) => {
        await repos.users.setPasswordHash(user.id, passwordHash, now().toISOString());
        return { endedSessions: await repos.sessions.deleteOthers(user.id, session.tokenHash) };
      });
    },
  };
}
