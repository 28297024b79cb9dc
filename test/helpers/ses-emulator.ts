/**
 * A local SES v2 endpoint speaking the REST-JSON wire protocol as
 * @aws-sdk/client-sesv2 sends it: SendEmail (`POST /v2/email/outbound-emails`)
 * and GetAccount (`GET /v2/email/account`). Every request's SigV4 signature is
 * computed again here, by hand, from the test credentials, so the client's
 * signing is what is tested; errors are answered as SES answers them, with
 * `x-amzn-ErrorType` and a JSON `message`.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export const TEST_ACCESS_KEY_ID = 'AKIAMAILROOMTEST0001';
export const TEST_SECRET_ACCESS_KEY = 'mailroom/test/secret/key/0123456789abcdefgh';
export const TEST_REGION = 'eu-west-1';

/** The environment that points the SES provider (and the SDK's credential chain) at an emulator. */
export function sesEnv(emulator: SesEmulator): Record<string, string> {
  return { MAILROOM_PROVIDER: 'ses', SES_ENDPOINT: emulator.url, AWS_REGION: TEST_REGION, AWS_ACCESS_KEY_ID: TEST_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: TEST_SECRET_ACCESS_KEY };
}

/** One SendEmail the emulator took. */
export interface EmulatedSend {
  messageId: string;
  /** Content.Raw.Data, base64-decoded: the bytes SES would send. */
  raw: Buffer;
  destination: { ToAddresses?: string[]; CcAddresses?: string[]; BccAddresses?: string[] } | undefined;
  fromEmailAddress: string | undefined;
  configurationSetName: string | undefined;
  /** When the request arrived (ms since the epoch), and from which client port. */
  at: number;
  clientPort: number;
  /** The access key that signed it. */
  accessKeyId: string;
}

/** What the next sends are answered with instead of a MessageId. */
export interface EmulatedError {
  status: number;
  type: string;
  message: string;
}

export interface SesEmulator {
  url: string;
  port: number;
  sends: EmulatedSend[];
  /** Requests refused for their signature or key, by error type. */
  refused: string[];
  /** GetAccount calls answered. */
  accountReads: number;
  /** The next `count` SendEmail calls are answered with `error` (taking nothing). */
  failNext(error: EmulatedError, count?: number): void;
  /** Every SendEmail is answered with `error` (taking nothing) until called again with undefined: a storm, not a blip. */
  setFailing(error: EmulatedError | undefined): void;
  /** SendEmail calls answered with an error of failNext or setFailing. */
  failedSends(): number;
  /** The secret the emulator knows for TEST_ACCESS_KEY_ID; another one makes every signature wrong. */
  setSecret(secret: string): void;
  /** GetAccount's SendQuota.MaxSendRate. */
  setMaxSendRate(rate: number): void;
  /** Sends are read but never answered (a silent endpoint) while true. */
  setSilent(silent: boolean): void;
  close(): Promise<void>;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
/** RFC 3986 percent-encoding, as SigV4 wants it. */
const uriEncode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Why a request's signature does not hold (an error type and SES's message), or undefined when it does.
 * The canonical request is built from what arrived: method, path, sorted query, the signed headers, the body's hash.
 */
export function signatureProblem(request: IncomingMessage, body: Buffer, secrets: Map<string, string>, region: string): EmulatedError | undefined {
  const auth = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(request.headers.authorization ?? '');
  const missing = { status: 403, type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  if (!auth) return missing;
  const [, keyId, day, signedRegion, service, signedHeaders, signature] = auth as unknown as string[];
  const secret = secrets.get(keyId!);
  if (secret === undefined) return { status: 403, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const mismatch = {
    status: 403,
    type: 'SignatureDoesNotMatch',
    message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
  };
  if (signedRegion !== region || service !== 'ses' || !amzDate.startsWith(day!)) return mismatch;
  const url = new URL(request.url ?? '/', 'http://emulator');
  const query = [...url.searchParams].map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`).sort().join('&');
  const names = signedHeaders!.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) return mismatch;
  const headerLines = names.map((name) => {
    const value = request.headers[name];
    return `${name}:${(Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ')}\n`;
  });
  const path = url.pathname.split('/').map((segment) => uriEncode(decodeURIComponent(segment))).join('/');
  const canonical = [request.method, path, query, headerLines.join(''), signedHeaders, sha256(body)].join('\n');
  const scope = `${day}/${region}/ses/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day!), region), 'ses'), 'aws4_request');
  return createHmac('sha256', key).update(toSign).digest('hex') === signature ? undefined : mismatch;
}

/** An id shaped as SES's: `0100` and hex groups, ending in `-000000`. */
function sesMessageId(n: number): string {
  const hex = (len: number) => Array.from({ length: len }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  return `0100${hex(12)}-${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${n.toString(16).padStart(12, '0')}-000000`;
}

export async function startSesEmulator(
  options: { maxSendRate?: number; region?: string; /** 0 (a free one) unless given. */ port?: number; /** More access keys (id → secret) besides TEST_ACCESS_KEY_ID's, e.g. one per process. */ keys?: Record<string, string> } = {},
): Promise<SesEmulator> {
  const region = options.region ?? TEST_REGION;
  const secrets = new Map([[TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY], ...Object.entries(options.keys ?? {})]);
  const sends: EmulatedSend[] = [];
  const refused: string[] = [];
  const failures: EmulatedError[] = [];
  let maxSendRate = options.maxSendRate ?? 14;
  let silent = false;
  let failing: EmulatedError | undefined;
  let failedSends = 0;
  let accountReads = 0;
  const answer = (res: ServerResponse, status: number, body: unknown, errorType?: string) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      'x-amzn-requestid': crypto.randomUUID(),
      ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
    });
    res.end(JSON.stringify(body));
  };
  const fail = (res: ServerResponse, e: EmulatedError) => answer(res, e.status, { message: e.message }, e.type);

  const server = createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const problem = signatureProblem(req, body, secrets, region);
      if (problem) {
        refused.push(problem.type);
        return fail(res, problem);
      }
      const path = new URL(req.url ?? '/', 'http://emulator').pathname;
      if (req.method === 'GET' && path === '/v2/email/account') {
        accountReads++;
        return answer(res, 200, {
          DedicatedIpAutoWarmupEnabled: false,
          EnforcementStatus: 'HEALTHY',
          ProductionAccessEnabled: true,
          SendQuota: { Max24HourSend: 50000, MaxSendRate: maxSendRate, SentLast24Hours: sends.length },
          SendingEnabled: true,
        });
      }
      if (req.method === 'POST' && path === '/v2/email/outbound-emails') {
        if (silent) return; // read, never answered: the client's timeout is what ends it
        const failure = failures.shift() ?? failing;
        if (failure) {
          failedSends++;
          return fail(res, failure);
        }
        let input: { Content?: { Raw?: { Data?: string } }; Destination?: EmulatedSend['destination']; FromEmailAddress?: string; ConfigurationSetName?: string };
        try {
          input = JSON.parse(body.toString('utf8'));
        } catch {
          return fail(res, { status: 400, type: 'BadRequestException', message: 'The request body is not valid JSON.' });
        }
        const data = input.Content?.Raw?.Data;
        if (typeof data !== 'string') return fail(res, { status: 400, type: 'BadRequestException', message: 'Content.Raw.Data is required.' });
        const messageId = sesMessageId(sends.length + 1);
        sends.push({
          messageId, raw: Buffer.from(data, 'base64'), destination: input.Destination, fromEmailAddress: input.FromEmailAddress,
          configurationSetName: input.ConfigurationSetName, at, clientPort: req.socket.remotePort ?? 0,
          accessKeyId: /Credential=([^/]+)\//.exec(req.headers.authorization ?? '')![1]!,
        });
        return answer(res, 200, { MessageId: messageId });
      }
      return fail(res, { status: 404, type: 'UnknownOperationException', message: `No operation at ${req.method} ${path}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    sends,
    refused,
    get accountReads() {
      return accountReads;
    },
    failNext(error, count = 1) {
      for (let i = 0; i < count; i++) failures.push(error);
    },
    setFailing: (error) => void (failing = error),
    failedSends: () => failedSends,
    setSecret: (secret) => void secrets.set(TEST_ACCESS_KEY_ID, secret),
    setMaxSendRate: (rate) => void (maxSendRate = rate),
    setSilent: (value) => void (silent = value),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// Run on its own (docs/ses.md, "Try it locally"): on SES_EMULATOR_PORT (default 4579) until interrupted, telling each send.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const emulator = await startSesEmulator({ port: Number(process.env.SES_EMULATOR_PORT ?? 4579), maxSendRate: Number(process.env.SES_EMULATOR_MAX_SEND_RATE ?? 14) });
  console.log(`SES v2 emulator at ${emulator.url}; credentials ${TEST_ACCESS_KEY_ID} / ${TEST_SECRET_ACCESS_KEY}, region ${TEST_REGION}`);
  let told = 0;
  setInterval(() => {
    for (const send of emulator.sends.slice(told)) console.log(`${new Date(send.at).toISOString()} ${send.messageId} to ${send.destination?.ToAddresses?.join(', ')}: ${send.raw.length} bytes`);
    told = emulator.sends.length;
  }, 200);
}
