import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { createTestApp } from './helpers/test-app.js';

const ROOT = join(import.meta.dirname, '..');
const UNIT = readFileSync(join(ROOT, 'deploy/mailroom.service'), 'utf8');
const GUIDE = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');

/** The values of one key of the unit's [Service] section, in order. */
function directive(name: string): string[] {
  return [...UNIT.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map((m) => m[1]!.trim());
}

/** systemd's time span for TimeoutStopSec (`20s`, `1min 30s`, `90`), in milliseconds. */
function spanMs(text: string): number {
  const units: Record<string, number> = { ms: 1, s: 1000, sec: 1000, min: 60_000, m: 60_000 };
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)\s*([a-z]*)/g)) total += Number(amount) * units[unit || 's']!;
  return total;
}

describe('deploy/mailroom.service', () => {
  it('passes systemd-analyze verify, without a warning, once its paths point at this checkout', async () => {
    // verify checks that ExecStart's program exists: this machine's node, and this checkout where the guide says /opt/mailroom.
    const unit = UNIT.replaceAll('/usr/bin/node', process.execPath).replaceAll('/opt/mailroom', ROOT);
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-unit-'));
    try {
      await writeFile(join(dir, 'mailroom.service'), unit);
      const { stderr } = await promisify(execFile)('systemd-analyze', ['verify', '--man=no', join(dir, 'mailroom.service')], { encoding: 'utf8' });
      // An unknown key or a bad value is only a warning (exit 0): the unit must have none.
      assert.equal(stderr.trim(), '');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs the compiled build with node itself, stops within the grace period and may write only its data dir', () => {
    assert.deepEqual(directive('ExecStart'), ['/usr/bin/node /opt/mailroom/bin/mailroom.js serve']);
    assert.deepEqual(directive('KillSignal'), ['SIGTERM']);
    assert.deepEqual(directive('Restart'), ['on-failure']);
    const graceMs = loadConfig({}).shutdownGraceMs;
    assert.ok(spanMs(directive('TimeoutStopSec')[0]!) > graceMs, `TimeoutStopSec exceeds SHUTDOWN_GRACE_MS's default ${graceMs} ms`);
    const dataDir = /^MAILROOM_DATA_DIR=(\S+)$/.exec(directive('Environment')[0]!)?.[1];
    assert.ok(dataDir, 'Environment= sets MAILROOM_DATA_DIR');
    assert.deepEqual(directive('ProtectSystem'), ['strict']);
    assert.deepEqual(directive('ReadWritePaths'), [dataDir]);
    assert.equal(`/var/lib/${directive('StateDirectory')[0]}`, dataDir);
    assert.deepEqual(directive('AmbientCapabilities'), ['CAP_NET_BIND_SERVICE']);
  });
});

describe('docs/operations.md', () => {
  it("has an environment file that Mailroom's configuration takes, naming only variables it reads", () => {
    const known = new Set([...readFileSync(join(ROOT, '.env.example'), 'utf8').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!));
    const block = /\/etc\/mailroom\/mailroom\.env[^\n]*\n\n```ini\n([\s\S]*?)```/.exec(GUIDE)?.[1];
    assert.ok(block, 'the guide shows /etc/mailroom/mailroom.env in an ini block');
    const env: Record<string, string> = {};
    for (const line of block.split('\n').filter((l) => l && !l.startsWith('#'))) {
      const [, name, value] = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line) ?? [];
      assert.ok(name, `an assignment: ${line}`);
      assert.ok(known.has(name), `${name} is a variable Mailroom reads`);
      env[name] = value!;
    }
    const config = loadConfig(env);
    assert.deepEqual(config.trustProxy, { proxies: ['127.0.0.1'] });
    assert.equal(config.publicOrigin, 'https://mail.example.com');
    // Every variable the prose or other blocks name is one Mailroom reads, too.
    for (const [, name] of GUIDE.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)(?:=[^`]*)?`/g)) {
      if (!name!.startsWith('CAP_')) assert.ok(known.has(name!), `${name} is a variable Mailroom reads`);
    }
  });

  it('writes its PromQL with metrics Mailroom serves', async () => {
    const test = await createTestApp({ METRICS_TOKEN: 'deployment-guide-token-0123' });
    try {
      const scrape = await test.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer deployment-guide-token-0123' } });
      assert.equal(scrape.statusCode, 200);
      const served = new Set([...scrape.body.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]!));
      // A histogram's series (_bucket, _sum, _count) are typed under the histogram's name.
      const named = new Set([...GUIDE.matchAll(/\b(mailroom_[a-z_]+)/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, '')));
      assert.ok(named.has('mailroom_delivery_queue_oldest_due_age_seconds') && named.has('mailroom_delivery_outcomes_total'));
      for (const name of named) assert.ok(served.has(name), `${name} is a metric /metrics serves`);
    } finally {
      await test.close();
    }
  });
});
