import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { storableText } from '../lib/external-text.js';
import { pinnedLookup } from './url-guard.js';

/** How much of a receiver's answer is kept with the attempt. */
export const WEBHOOK_RESPONSE_BODY_LIMIT = 1024;

/** Connections kept open per endpoint, so a burst does not pay a handshake per post. */
export const WEBHOOK_SOCKETS_PER_ENDPOINT = 16;
/** Endpoints whose connections are kept; the least recently used are closed beyond this. */
const KEPT_AGENTS = 256;
const agents = new Map<string, HttpAgent>();

/**
 * The keep-alive agent of one endpoint. One per endpoint, not one per host:
 * endpoints sharing a host (a relay service, several workspaces) must not
 * queue behind each other's sockets, where their deadline would run out.
 */
function agentFor(endpointId: string, https: boolean): HttpAgent {
  const key = `${endpointId}\0${https}`;
  let agent = agents.get(key);
  if (agent) {
    agents.delete(key); // re-inserted below: most recently used last
  } else {
    const options = { keepAlive: true, maxSockets: WEBHOOK_SOCKETS_PER_ENDPOINT };
    agent = https ? new HttpsAgent(options) : new HttpAgent(options);
  }
  agents.set(key, agent);
  if (agents.size > KEPT_AGENTS) {
    const [oldest, evicted] = agents.entries().next().value!;
    agents.delete(oldest);
    evicted.destroy();
  }
  return agent;
}

export interface PostResult {
  /** The HTTP status, or null when there was no answer (timeout, refused, reset). */
  status: number | null;
  /** At most WEBHOOK_RESPONSE_BODY_LIMIT bytes of the answer, as text. */
  body: string | null;
  error: string | null;
  durationMs: number;
}

/**
 * POSTs `body` to `url`, connecting only to `addresses` (those the SSRF guard
 * vetted for this attempt: a DNS answer that changed since cannot redirect the
 * request to a private address), with a deadline for the whole exchange. Redirects are not
 * followed (a 3xx is an answer like any other non-2xx), and the answer is read
 * up to a bound, then the connection is dropped.
 */
export function postWebhook(endpointId: string, url: URL, addresses: string[], headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostResult> {
  const started = performance.now();
  const target = url;
  const lookup = pinnedLookup(addresses);
  const https = target.protocol === 'https:';
  const send = https ? httpsRequest : httpRequest;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...result, durationMs: Math.round(performance.now() - started) });
    };
    // A kept-alive connection was opened to a vetted address too: `lookup` is asked whenever a new one is made.
    const agent = agentFor(endpointId, https);
    const req = send(target, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body).toString(), 'user-agent': 'Mailroom-Webhooks/1' }, lookup, agent });
    const deadline = setTimeout(() => {
      req.destroy();
      finish({ status: null, body: null, error: `No answer within ${timeoutMs} ms` });
    }, timeoutMs);
    req.on('error', (error) => finish({ status: null, body: null, error: error.message }));
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => finish({ status: res.statusCode ?? null, body: storableText(Buffer.concat(chunks).toString('utf8').slice(0, WEBHOOK_RESPONSE_BODY_LIMIT)), error: null });
      res.on('data', (chunk: Buffer) => {
        if (size < WEBHOOK_RESPONSE_BODY_LIMIT) chunks.push(chunk.subarray(0, WEBHOOK_RESPONSE_BODY_LIMIT - size));
        size += chunk.length;
        if (size >= WEBHOOK_RESPONSE_BODY_LIMIT) {
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', done);
    });
    req.end(body);
  });
}
