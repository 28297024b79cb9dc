import { writeWhileStoreAway } from '../db/store-failure.js';
import { nowIso } from '../lib/ids.js';
import type { Store } from '../db/store.js';
import { RETURN_PATH_LABEL, generateDkimKeyPair, type DkimKeyPair, SANDBOX_SENDER_DOMAIN } from '../domains/index.js';
import type { BuiltMessage, SigningDomain } from './message-builder.js';
import type { Provider, RecipientOutcome } from './provider.js';
import { classifyRefusal } from './refusal-table.js';

/** How long a hand-over into the sandbox waits for a store that is away (well inside WORKER_LEASE_MS's default). */
const SANDBOX_HAND_OVER_MS = 30_000;

/** Addresses at this domain produce an outcome on purpose, in the spirit of the SES mailbox simulator. */
export const SIMULATOR_DOMAIN = 'simulator.mailroom.test';

/**
 * What each simulator mailbox does (docs/delivery.md, "Providers"); any
 * other address is delivered into the sandbox. `tempfail` fails every
 * attempt, so it shows the retries and, once they run out, `failed`.
 */
const BOUNCE_REPLY = '550 5.1.1 Mailbox does not exist (sandbox simulator: hard bounce)';

export const SIMULATOR_MAILBOXES: Readonly<Record<string, Omit<RecipientOutcome, 'recipient'>>> = {
  delivered: { kind: 'delivered', detail: '250 2.0.0 Delivered (sandbox simulator)' },
  // Read with the same refusal table as a relay's answer to RCPT: an address refusal (NoEmail).
  bounce: { kind: 'permanent', detail: BOUNCE_REPLY, bounceSubtype: classifyRefusal({ stage: 'RCPT', code: 550, text: BOUNCE_REPLY }).subtype! },
  tempfail: { kind: 'temporary', detail: '451 4.3.0 Try again later (sandbox simulator: temporary failure)' },
  complaint: { kind: 'delivered', detail: '250 2.0.0 Delivered; the recipient will complain (sandbox simulator)', complaint: 'abuse' },
};

const KEPT = { kind: 'delivered', detail: '250 2.0.0 Kept in the sandbox, not sent' } as const;

function simulate(recipient: string): RecipientOutcome {
  const at = recipient.lastIndexOf('@');
  const [local, domain] = [recipient.slice(0, at).toLowerCase(), recipient.slice(at + 1).toLowerCase()];
  const simulated = domain === SIMULATOR_DOMAIN ? SIMULATOR_MAILBOXES[local] : undefined;
  return { recipient, ...(simulated ?? KEPT) };
}

/**
 * The default provider: nothing leaves the machine. Each message is kept as
 * built (MIME text and envelope) so a developer can read it back with
 * `mailroom sandbox show MESSAGE_ID`; simulator recipients produce the
 * outcomes above.
 */
export function createSandboxProvider(store: Pick<Store, 'sandboxMessages'>): Provider {
  return {
    name: 'sandbox',
    async send(message: BuiltMessage): Promise<RecipientOutcome[]> {
      const row = {
        message_id: message.messageId,
        workspace_id: message.workspaceId,
        envelope_from: JSON.stringify(message.envelopes.map((e) => e.from)),
        envelope_to: JSON.stringify(message.envelopes.map((e) => e.to)),
        raw: message.raw.toString('utf8'),
        created_at: nowIso(),
      };
      // The store is where the sandbox hands mail over: while it is away the hand-over waits, as for a slow relay,
      // rather than failing as a provider error (retried only after the retry policy's first delay).
      await writeWhileStoreAway(() => store.sandboxMessages.keep(row), { deadline: Date.now() + SANDBOX_HAND_OVER_MS, wanted: () => true });
      return message.envelopes.map((e) => simulate(e.to));
    },
    async close() {},
  };
}

let sandboxKey: Promise<DkimKeyPair> | undefined;

/**
 * How mail from the built-in sandbox sender domain is signed: it has no
 * domain row, so with a key made once per process. No DNS publishes it; the
 * signature is there so the kept message looks as it would in production.
 */
export async function sandboxSigningDomain(): Promise<SigningDomain> {
  sandboxKey ??= generateDkimKeyPair();
  const key = await sandboxKey;
  return {
    domain: SANDBOX_SENDER_DOMAIN,
    return_path_domain: `${RETURN_PATH_LABEL}.${SANDBOX_SENDER_DOMAIN}`,
    dkim_selector: key.selector,
    dkim_private_key: key.privateKeyPem,
  };
}
