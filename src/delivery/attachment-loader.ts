import type { MessageAttachmentsTable } from '../db/schema.js';
import type { AttachmentsRepository } from '../sending/attachments/attachments-repository.js';

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
  let held = 0;
  let holders = 0;
  const waiting: { bytes: number; go(): void }[] = [];

  const fits = (bytes: number) => holders === 0 || held + bytes <= budget;
  const admit = () => {
    while (waiting.length > 0 && fits(waiting[0]!.bytes)) {
      const next = waiting.shift()!;
      held += next.bytes;
      holders++;
      next.go();
    }
  };

  return {
    async load(messageId, bytes) {
      await new Promise<void>((go) => {
        waiting.push({ bytes, go });
        admit();
      });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        held -= bytes;
        holders--;
        admit();
      };
      try {
        return { rows: await repo.listWithContent(messageId), release };
      } catch (error) {
        release();
        throw error;
      }
    },
  };
}
