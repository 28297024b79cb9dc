/**
 * What a browser test of the dashboard sets up around a real `mailroom serve`:
 * a workspace and its people made with the CLI (as an operator makes them),
 * calls to /v1 with the workspace's key, and signing in on the page.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import type { MemberRole } from '../../src/db/schema.js';
import { BIN, mailroomCommand } from './serve-process.js';

/** `mailroom workspace create --json`: the workspace and its first key. */
export function createWorkspace(storeEnv: Record<string, string>, name: string): { workspaceId: string; apiKey: string } {
  const created = mailroomCommand(['workspace', 'create', '--name', name, '--json'], storeEnv);
  assert.equal(created.status, 0, created.stderr);
  const { workspace_id, api_key } = JSON.parse(created.stdout) as { workspace_id: string; api_key: string };
  return { workspaceId: workspace_id, apiKey: api_key };
}

/** `mailroom user create`, the password on standard input, as a member of the workspace with the role. */
export function createMember(storeEnv: Record<string, string>, workspaceId: string, email: string, role: MemberRole, password: string): void {
  const args = ['user', 'create', '--email', email, '--password-stdin', '--workspace', workspaceId, '--role', role];
  const run = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...storeEnv }, input: `${password}\n`, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
}

/** A caller of /v1 with an API key: the status and the parsed envelope. */
export function v1Caller(base: string, apiKey: string) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: { data: any; error?: string } }> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: any; error?: string } };
  };
}

/** Signs in on the sign-in page and waits for the Overview. */
export async function signInOnPage(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(base);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}
