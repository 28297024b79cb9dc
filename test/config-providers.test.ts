import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';

const SMTP_URL = 'smtp://mailroom:relay-password@relay.example.com:587';

/** The message loadConfig stops with, which must be a ConfigError. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail(`${JSON.stringify(env)} was taken`);
}

describe('MAILROOM_PROVIDER', () => {
  it('is sandbox by default, one provider, and keeps relays to public hosts unless UPSTREAM_ALLOW_PRIVATE=true', () => {
    const config = loadConfig({});
    assert.deepEqual([config.provider, config.providers, config.upstreamAllowPrivate], ['sandbox', ['sandbox'], false]);
    assert.equal(loadConfig({ UPSTREAM_ALLOW_PRIVATE: 'true' }).upstreamAllowPrivate, true);
    assert.equal(refusal({ UPSTREAM_ALLOW_PRIVATE: 'yes' }), 'Invalid configuration: UPSTREAM_ALLOW_PRIVATE must be true or false (got "yes")');
  });

  it('takes an ordered list of smtp and ses, spaces and all: the first is `provider`, the order is the failover order', () => {
    const sesFirst = loadConfig({ MAILROOM_PROVIDER: 'ses,smtp', SMTP_URL });
    assert.deepEqual([sesFirst.provider, sesFirst.providers, sesFirst.smtpUrl], ['ses', ['ses', 'smtp'], SMTP_URL]);
    const smtpFirst = loadConfig({ MAILROOM_PROVIDER: 'smtp, ses', SMTP_URL });
    assert.deepEqual([smtpFirst.provider, smtpFirst.providers], ['smtp', ['smtp', 'ses']]);
    assert.deepEqual(loadConfig({ MAILROOM_PROVIDER: ' ses ' }).providers, ['ses']);
    assert.deepEqual(loadConfig({ MAILROOM_PROVIDER: 'smtp', SMTP_URL }).providers, ['smtp']);
  });

  it('refuses the sandbox in a list, a provider named twice, an unknown one and an empty entry, naming the variable', () => {
    assert.equal(
      refusal({ MAILROOM_PROVIDER: 'sandbox,smtp', SMTP_URL }),
      'Invalid configuration: MAILROOM_PROVIDER\'s sandbox keeps every message on this machine and cannot be in a list with upstreams (got "sandbox,smtp")',
    );
    assert.equal(refusal({ MAILROOM_PROVIDER: 'smtp,smtp', SMTP_URL }), 'Invalid configuration: MAILROOM_PROVIDER names a provider twice (got "smtp,smtp")');
    assert.equal(refusal({ MAILROOM_PROVIDER: 'ses, smtp ,ses', SMTP_URL }), 'Invalid configuration: MAILROOM_PROVIDER names a provider twice (got "ses, smtp ,ses")');
    const unknown = 'must be one of sandbox, smtp, ses, or a comma-separated list of smtp and ses in the order to try them (ses,smtp)';
    for (const value of ['carrier-pigeon', 'ses,postmark', 'ses,,smtp', 'ses,', 'SES']) {
      assert.equal(refusal({ MAILROOM_PROVIDER: value, SMTP_URL }), `Invalid configuration: MAILROOM_PROVIDER ${unknown} (got ${JSON.stringify(value)})`);
    }
  });

  it('asks for SMTP_URL whenever smtp is named, alone or in a list, and never prints it', () => {
    assert.equal(refusal({ MAILROOM_PROVIDER: 'smtp' }), 'Invalid configuration: SMTP_URL is required when MAILROOM_PROVIDER is smtp');
    assert.equal(refusal({ MAILROOM_PROVIDER: 'ses,smtp' }), 'Invalid configuration: SMTP_URL is required when MAILROOM_PROVIDER names smtp (got "ses,smtp")');
    assert.equal(refusal({ MAILROOM_PROVIDER: 'smtp, ses' }), 'Invalid configuration: SMTP_URL is required when MAILROOM_PROVIDER names smtp (got "smtp, ses")');
    const bad = refusal({ MAILROOM_PROVIDER: 'ses,smtp', SMTP_URL: 'http://mailroom:relay-password@relay.example.com' });
    assert.match(bad, /^Invalid configuration: SMTP_URL must be a smtp:\/\/ or smtps:\/\/ URL/);
    assert.ok(!bad.includes('relay-password'));
  });
});
