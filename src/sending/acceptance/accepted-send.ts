import type { MessageAttachmentsTable, MessagesTable } from '../../db/schema.js';
import type { MessageEvent } from '../../events/index.js';
import type { LogEntryRow } from '../../logs/index.js';
import type { NewDeliveryJob } from '../messages-repository.js';

/**
 * Everything one accepted send writes: the message, its log entries, its
 * outbox row unless nobody is to receive it, and the events of recipients
 * settled at once (failed, for an unverified sender domain). Recipients on the
 * suppression list are held back as it is written (holdBackSuppressed).
 */
export interface AcceptedSend {
  message: MessagesTable;
  entries: LogEntryRow[];
  /** Decoded at acceptance; written with the message (sending/attachments). None when absent. */
  attachments?: MessageAttachmentsTable[];
  job: NewDeliveryJob | null;
  events: MessageEvent[];
  /**
   * The API key the send was made with. The write checks, in its transaction, that the key still exists:
   * the API may have taken it from a cache (api-key-service.ts), and a key deleted meanwhile sends nothing.
   */
  keyId?: string;
  /**
   * A sender domain the API took as verified from memory (send-service.ts). The write checks that it
   * still is, and writes nothing of a send whose domain is not: the service reads the domain again and
   * writes the send `failed`, with the reason.
   */
  senderDomainId?: string;
  /**
   * Sends sharing a group (the items of one POST /v1/send/batch) are committed
   * together or not at all: should their shared batch fail, they are retried
   * as one transaction rather than one by one, so a client never sees half of
   * its batch written.
   */
  group?: string;
}
