import { RecipientLimitError, ValidationError } from '../lib/errors.js';
import type { RateLimiter } from '../lib/rate-limiter.js';

/** What a send took of its workspace's budget, to give back should it not be written after all. */
export interface TakenRecipients {
  giveBack(): Promise<void>;
}

export interface RecipientLimit {
  /**
   * Takes `recipients` from the workspace's budget for this minute, or refuses the whole request: a
   * RecipientLimitError (429) when they do not fit in what is left, counting none of them; a
   * ValidationError (400) when they could not fit in any minute.
   */
  take(workspaceId: string, recipients: number): Promise<TakenRecipients>;
}

/**
 * RATE_LIMIT_RECIPIENTS_PER_MIN: a ceiling on the recipients (to, cc and bcc, each once) of every send a
 * workspace's sends write in one window, whichever way they come in — any of its keys, a batch's items,
 * the Resend routes, SMTP submission, the dashboard's test send — since they all pass through the send
 * service. The counters are the request limits' own (process memory, or Redis shared by every process).
 */
export function createRecipientLimit(limiter: RateLimiter, perMinute: number): RecipientLimit {
  return {
    async take(workspaceId, recipients) {
      if (recipients > perMinute) {
        throw new ValidationError(`The request has ${recipients} recipients, more than the ${perMinute} this workspace may send to per minute; send them in smaller requests`);
      }
      const bucket = `workspace:${workspaceId}:recipients`;
      const decision = await limiter.take(bucket, perMinute, recipients);
      if (!decision.allowed) throw new RecipientLimitError(decision);
      return { giveBack: () => limiter.giveBack(bucket, perMinute, recipients) };
    },
  };
}
