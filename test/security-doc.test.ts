/**
 * SECURITY.md states the limits an attacker meets; this keeps each figure it
 * states equal to the constant or default that enforces it, so the document
 * cannot promise a bound the code has moved away from.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { DASHBOARD_REQUESTS_PER_MIN } from '../src/dashboard/session-guard.js';
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, MAX_HEADER_BYTES, MAX_URL_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from '../src/http/server-limits.js';
import {
  INBOUND_MAX_CONNECTIONS, INBOUND_MAX_CONNECTIONS_PER_CLIENT, INBOUND_MAX_MESSAGE_BYTES, INBOUND_MAX_PARSING, INBOUND_MAX_RECIPIENTS,
} from '../src/inbound/inbound-receiver.js';
import { REPORT_READ_BYTES } from '../src/inbound/read-limits.js';
import { RETURN_PATH_TTL_DAYS } from '../src/inbound/return-path.js';
import { PARSE_DEADLINE_MS } from '../src/inbound/threaded-report-parser.js';
import { INVITATION_TTL_MS } from '../src/people/invitation-service.js';
import { MAX_HASHES_AT_ONCE, MAX_HASHES_WAITING } from '../src/people/password-hashing.js';
import { LOCKOUT_FAILURES, LOCKOUT_WINDOW_MS, SESSION_IDLE_MS, SESSION_LIFETIME_MS, SIGN_IN_ATTEMPTS_PER_CLIENT } from '../src/people/session-service.js';
import { SETUP_LINK_TTL_MS } from '../src/people/setup-service.js';
import { reservedHeader } from '../src/sending/custom-headers.js';
import { SEND_BODY_LIMIT, SEND_MEMORY_BUDGET } from '../src/sending/send-memory.js';
import { MAX_BODY_BYTES } from '../src/app.js';
import { SUBMISSION_MAX_CONNECTIONS, SUBMISSION_MAX_MESSAGE_BYTES } from '../src/submission/submission-server.js';

const doc = readFileSync(new URL('../SECURITY.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
const KIB = 1024;
const MIB = 1024 * KIB;
const MINUTE = 60_000;
const DAY = 86_400_000;

function says(phrase: string) {
  assert.ok(doc.includes(phrase), `SECURITY.md should say "${phrase}"`);
}

describe('SECURITY.md', () => {
  it('states the HTTP edge as server-limits.ts and the body limits enforce it', () => {
    says(`${HEADERS_TIMEOUT_MS / 1000} s from the first byte (408), ${MAX_HEADER_BYTES / KIB} KiB (431); the URL ${MAX_URL_BYTES / KIB} KiB (414)`);
    says(`\`HTTP_REQUEST_TIMEOUT_MS\` (${DEFAULT_REQUEST_TIMEOUT_MS / MINUTE} minutes)`);
    says(`an idle keep-alive after ${KEEP_ALIVE_TIMEOUT_MS / 1000} s`);
    says(`bodies: ${MAX_BODY_BYTES / MIB} MiB, sends ${SEND_BODY_LIMIT / MIB} MiB (413); large send bodies read at once: ${SEND_MEMORY_BUDGET / MIB} MiB`);
  });

  it('states the default rate limits that loadConfig applies', () => {
    const { rateLimits } = loadConfig({});
    says(`\`RATE_LIMIT_SEND_PER_MIN\` (${rateLimits.sendPerMinute}) send requests and \`RATE_LIMIT_OTHER_PER_MIN\` (${rateLimits.otherPerMinute})`);
    says(`\`RATE_LIMIT_RECIPIENTS_PER_MIN\` (${rateLimits.recipientsPerMinute.toLocaleString('en')}) recipients a minute per workspace`);
  });

  it('names only headers that the send rules refuse', () => {
    const named = ['Authentication-Results', 'ARC-Seal', 'Received-SPF', 'Received', 'Delivered-To', 'X-Original-To', 'Return-Path', 'DKIM-Signature', 'X-Mailroom-Id'];
    for (const header of named) assert.ok(reservedHeader(header), `${header} should be refused as a custom header`);
    says('`Authentication-Results`, `ARC-*`, `Received*`, `Delivered-To`, `X-Original-To`, `Return-Path`, `DKIM-Signature`, `X-Mailroom-*`');
  });

  it('states the sign-in, session and link bounds of people/', () => {
    const window = `${LOCKOUT_WINDOW_MS / MINUTE} minutes`;
    says(`${SIGN_IN_ATTEMPTS_PER_CLIENT} sign-in attempts per client address in ${window}`);
    says(`${LOCKOUT_FAILURES} failures for one account from one client in ${window}`);
    says(`${MAX_HASHES_AT_ONCE} at once (no more than the machine's cores), ${MAX_HASHES_WAITING} waiting`);
    says(`${DASHBOARD_REQUESTS_PER_MIN} requests a minute per session`);
    says(`${SESSION_IDLE_MS / DAY} days unused, ${SESSION_LIFETIME_MS / DAY} days at most`);
    says(`valid one hour, once`);
    assert.equal(SETUP_LINK_TTL_MS, 60 * MINUTE);
    says(`valid ${INVITATION_TTL_MS / DAY} days, once`);
  });

  it('states the SMTP bounds of the inbound receiver and submission', () => {
    says(`inbound: ${INBOUND_MAX_CONNECTIONS} connections, ${INBOUND_MAX_CONNECTIONS_PER_CLIENT} per client`);
    says(`${INBOUND_MAX_RECIPIENTS} recipients and ${INBOUND_MAX_MESSAGE_BYTES / MIB} MiB per message`);
    says(`${INBOUND_MAX_PARSING} reports parsed at once on a thread of their own, each reading at most its first ${REPORT_READ_BYTES / KIB} KiB, within ${PARSE_DEADLINE_MS / 1000} s`);
    says(`expire after ${RETURN_PATH_TTL_DAYS} days`);
    says(`submission: ${SUBMISSION_MAX_CONNECTIONS} connections, ${SUBMISSION_MAX_MESSAGE_BYTES / MIB} MiB per message`);
  });
});
