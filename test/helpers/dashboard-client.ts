import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { MemberRole } from '../../src/db/schema.js';
import type { TestApp } from './test-app.js';

/** The dashboard's origin as the tests' requests name it (Host and Origin agree, as a browser's do). */
export const DASHBOARD_ORIGIN = 'http://mailroom.test';

export interface DashboardCall {
  cookie?: string;
  csrf?: string;
  /** null: no Origin header at all. */
  origin?: string | null;
  body?: unknown;
}

/** A request to /dashboard/api as the browser makes it: Host, Origin, the session cookie and the CSRF header. */
export function dashboardRequest(t: TestApp, method: string, url: string, options: DashboardCall = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: method as 'GET',
    url: `/dashboard/api${url}`,
    headers: {
      host: new URL(DASHBOARD_ORIGIN).host,
      ...(options.origin === null ? {} : { origin: options.origin ?? DASHBOARD_ORIGIN }),
      ...(options.cookie ? { cookie: options.cookie } : {}),
      ...(options.csrf ? { 'x-csrf-token': options.csrf } : {}),
    },
    ...(options.body !== undefined ? { payload: options.body as object } : {}),
  });
}

export function setCookieOf(res: LightMyRequestResponse): string {
  const header = res.headers['set-cookie'];
  return (Array.isArray(header) ? header[0] : header) ?? '';
}

/** Signs in; the cookie and CSRF token to send along, and what sign-in answered. */
export async function dashboardSignIn(t: TestApp, email: string, password: string) {
  const res = await dashboardRequest(t, 'POST', '/session', { body: { email, password } });
  assert.equal(res.statusCode, 200, res.body);
  return { cookie: setCookieOf(res).split(';')[0]!, csrf: res.json().data.csrf_token as string, setCookie: setCookieOf(res), body: res.json() };
}

/** The password of the people signedInPerson makes. */
export const PERSON_PASSWORD = 'correct horse 7';
let people = 0;

/** A new user (a member of the workspace with the role, when given), signed in: id, e-mail, cookie and CSRF token. */
export async function signedInPerson(t: TestApp, workspaceId?: string, role?: MemberRole) {
  const email = `person${++people}@example.com`;
  const { id } = await t.services.users.create({ email, password: PERSON_PASSWORD, workspaceId, role });
  return { id, email, ...(await dashboardSignIn(t, email, PERSON_PASSWORD)) };
}
