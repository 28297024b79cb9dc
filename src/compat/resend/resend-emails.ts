import { ForbiddenError } from '../../lib/errors.js';
import type { Services } from '../../composition/index.js';
import type { SendingKey } from '../../sending/index.js';
import { emailView, type ResendEmailView } from './email-view.js';
import { inResendTerms, toSendInput, type ResendEmail } from './email-request.js';

/** A batch item a permissive batch could not send: Resend's `errors` entry. */
export interface BatchItemError {
  index: number;
  message: string;
}

/**
 * Resend's e-mail routes on /v1's services: the same acceptance (rules,
 * idempotency, key domain, log entries), the same message detail and cancel.
 */
export function createResendEmails(services: Pick<Services, 'send' | 'messages' | 'scheduledSends'>) {
  /** /v1's sentences in Resend's field names. */
  async function speakingResend<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw inResendTerms(error);
    }
  }

  return {
    /**
     * A sender domain that may not send is a `failed` send under /v1 (recorded, 200); Resend refuses such
     * a send with 403 `validation_error`, so this answers that, the failed send staying in the log.
     */
    async send(workspaceId: string, email: ResendEmail, key: SendingKey | null): Promise<{ id: string }> {
      const result = await speakingResend(() => services.send.accept(workspaceId, toSendInput(email), key, 'resend'));
      if (result.status === 'failed') throw new ForbiddenError(result.error ?? 'The sender domain may not send');
      return { id: result.message_id };
    },

    /**
     * All or nothing at validation, as /v1's batch. Items whose sender domain may not send are recorded
     * `failed`, as /v1 does, and listed in Resend's permissive `errors` (by index) whichever mode the
     * client asked for: the other items were sent, so refusing the whole batch would mislead a retry.
     */
    async batch(workspaceId: string, emails: ResendEmail[], key: SendingKey | null): Promise<{ data: { id: string }[]; errors?: BatchItemError[] }> {
      const results = await speakingResend(() => services.send.acceptBatch(workspaceId, emails.map(toSendInput), key, 'resend'));
      const errors = results.flatMap((result, index) => (result.status === 'failed' ? [{ index, message: result.error ?? 'The sender domain may not send' }] : []));
      const data = results.filter((result) => result.status !== 'failed').map((result) => ({ id: result.message_id }));
      return errors.length > 0 ? { data, errors } : { data };
    },

    async get(workspaceId: string, id: string): Promise<ResendEmailView> {
      const [detail, content, mailboxes] = await Promise.all([
        services.messages.get(workspaceId, id),
        services.messages.content(workspaceId, id),
        services.messages.mailboxes(workspaceId, id),
      ]);
      return emailView(detail, content, mailboxes, new Date());
    },

    async cancel(workspaceId: string, id: string): Promise<{ object: 'email'; id: string }> {
      await services.scheduledSends.cancel(workspaceId, id);
      return { object: 'email', id };
    },
  };
}
