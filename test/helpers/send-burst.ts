/** One answer of a burst: what the client saw, and when. */
export interface BurstAnswer {
  /** The HTTP status, or null when the request failed on the network (no answer at all). */
  status: number | null;
  startedAt: number;
  endedAt: number;
  retryAfter: string | null;
  body: unknown;
  /** The message id of a 200. */
  messageId?: string;
}

export interface SendBurst {
  answers: BurstAnswer[];
  /** Lets each client finish the request it has out, then resolves. */
  stop(): Promise<void>;
}

/**
 * `concurrency` clients each sending `body()` to `POST {base}/v1/send` one after the other, until stopped,
 * keeping every answer: a real burst against a real process, for tests that break something under it.
 */
export function startSendBurst(base: string, apiKey: string, body: (n: number) => unknown, concurrency = 8): SendBurst {
  const answers: BurstAnswer[] = [];
  let stopped = false;
  let sent = 0;
  async function client(): Promise<void> {
    while (!stopped) {
      const startedAt = Date.now();
      try {
        const res = await fetch(`${base}/v1/send`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: JSON.stringify(body(sent++)),
        });
        const text = await res.text();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // Kept as text: the test's assertions on the body say what is wrong with it.
        }
        const messageId = res.status === 200 ? (parsed as { data?: { message_id?: string } }).data?.message_id : undefined;
        answers.push({ status: res.status, startedAt, endedAt: Date.now(), retryAfter: res.headers.get('retry-after'), body: parsed, ...(messageId ? { messageId } : {}) });
      } catch (error) {
        answers.push({ status: null, startedAt, endedAt: Date.now(), retryAfter: null, body: String((error as Error).cause ?? error) });
      }
    }
  }
  const clients = Array.from({ length: concurrency }, client);
  return {
    answers,
    async stop() {
      stopped = true;
      await Promise.all(clients);
    },
  };
}

/** How many answers of each status (`network` for none): for a test's failure message and its report. */
export function countByStatus(answers: BurstAnswer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status } of answers) counts[status ?? 'network'] = (counts[status ?? 'network'] ?? 0) + 1;
  return counts;
}
