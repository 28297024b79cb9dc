import type { MessageAttachmentsTable } from '../db/schema.js';
import type { AttachmentsRepository } from '../sending/index.js';
import { createByteBudget } from '../lib/byte-budget.js';

/**
 * Bytes of attachments a worker holds at once while building and handing
 * over (not counting the MIME made of them): a 40 MB message takes the whole
 * budget and goes alone, small ones share it. Ten 40 MB messages claimed
 * together are so built one after another, not all at once (bench:attachments).
 */
export const ATTACHMENT_BUDGET_BYTES = 64 * 1024 * 1024;

export interface LoadedAttachments {
  rows: MessageAttachmentsTable[];
  /** Gives the budget back: call once the hand-over is over. */
  release(): void;
}

export interface AttachmentLoader {
  /** Waits for room in the budget for `bytes`, then reads the message's attachments. */
  load(messageId: string, bytes: number): Promise<LoadedAttachments>;
}

/** Reads attachments for the worker within a byte budget (FIFO: a large message is not starved by small ones). */
export function createAttachmentLoader(repo: Pick<AttachmentsRepository, 'listWithContent'>, budget = ATTACHMENT_BUDGET_BYTES): AttachmentLoader {
  const memory = createByteBudget(budget);
  return {
    async load(messageId, bytes) {
      const release = await memory.acquire(bytes);
      try {
        return { rows: await repo.listWithContent(messageId), release };
      } catch (error) {
        release();
        throw error;
      }
    },
  };
}
