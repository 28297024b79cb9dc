/** The dashboard API's answers: SPEC.md's envelope, as /v1's. */
type Envelope<T> = { success: true; data: T } | { success: false; error: string };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken: string | undefined;

/** The session's CSRF token, sent with every request that changes something. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** A call to /dashboard/api: the session cookie goes along; an error answer throws ApiError with the server's sentence. */
export async function api<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const response = await fetch(`/dashboard/api${path}`, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const envelope = (await response.json().catch(() => ({ success: false, error: `The server answered ${response.status}` }))) as Envelope<T>;
  if (!envelope.success) throw new ApiError(response.status, envelope.error);
  return envelope.data;
}
