import type { Redis } from 'ioredis';
import type { Store } from '../db/store.js';

/**
 * Slots are spaced a tenth wider than the rate asks: the time between a claimed slot and the
 * request's arrival at the upstream (a timer that fires late, signing, the connection) varies from
 * one send to the next, and must not bunch six sends of a 5/s rate into one second at the far end.
 */
export const PACING_MARGIN = 1.1;

/** Where the next free slot of a shared rate is kept: one atomic claim per send, answering how long to wait. */
export interface SlotClaimer {
  claim(intervalMs: number): Promise<number>;
  close(): Promise<void>;
}

/** Slots in the store's send_slots table (provider-state-repository.ts): every worker on the store shares them. */
export function storeSlots(store: Store, name: string): SlotClaimer {
  return { claim: (intervalMs) => store.providerState.claimSlot(name, intervalMs), close: async () => undefined };
}

/** The same claim in Redis, with Redis's clock, as one script: the later of the next free slot and now. */
const CLAIM_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local slot = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), now)
redis.call('SET', KEYS[1], slot + interval, 'PX', slot + interval - now + 60000)
return slot - now`;

/** Slots in Redis (REDIS_URL): shared by every worker that uses the same Redis and prefix. Connected on first use. */
export function redisSlots(connect: () => Promise<Redis>, key: string): SlotClaimer {
  let redis: Promise<Redis> | undefined;
  return {
    async claim(intervalMs) {
      // A failed connection is tried again at the next send, not kept.
      redis ??= connect().catch((error: unknown) => {
        redis = undefined;
        throw error;
      });
      return Math.max(0, Number(await (await redis).eval(CLAIM_SCRIPT, 1, key, intervalMs)));
    },
    close: async () => (await redis?.catch(() => undefined))?.disconnect(),
  };
}

export interface SendRate {
  /** Resolves once this send's slot has come; rejects when the slot cannot be claimed, or the rate is closed. */
  take(): Promise<void>;
  /** Sends per second from now on. */
  setRate(perSecond: number): void;
  readonly perSecond: number;
  close(): Promise<void>;
}

/**
 * Paces hand-overs across every worker process sharing `slots`: each send claims the next slot
 * and sleeps until it comes (one claim, one timer: waiting never polls the store).
 */
export function createSendRate(slots: SlotClaimer, perSecond: number): SendRate {
  let rate = perSecond;
  let closed = false;
  const sleeping = new Set<{ timer: NodeJS.Timeout; reject(error: Error): void }>();
  return {
    get perSecond() {
      return rate;
    },
    setRate(value) {
      rate = value;
    },
    async take() {
      if (closed) throw new Error('the send rate is closed');
      const wait = await slots.claim(Math.ceil((1000 * PACING_MARGIN) / rate));
      if (wait <= 0) return;
      await new Promise<void>((resolve, reject) => {
        const sleeper = {
          timer: setTimeout(() => {
            sleeping.delete(sleeper);
            resolve();
          }, wait),
          reject,
        };
        sleeping.add(sleeper);
      });
    },
    async close() {
      closed = true;
      for (const s of sleeping) {
        clearTimeout(s.timer);
        s.reject(new Error('the send rate is closed'));
      }
      sleeping.clear();
      await slots.close();
    },
  };
}
