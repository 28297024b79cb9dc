import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';

describe('the SES settings', () => {
  it('default to no topics, AWS\'s SNS hosts and a 48-hour event timeout', () => {
    const { ses } = loadConfig({});
    assert.deepEqual(ses.snsTopicArns, []);
    assert.deepEqual(ses.snsTrustedHosts, ['sns.*.amazonaws.com', 'sns.*.amazonaws.com.cn']);
    assert.equal(ses.eventTimeoutMs, 48 * 3_600_000);
    assert.equal(ses.maxSendRate, undefined);
  });

  it('read lists with spaces and empty entries, durations in each unit, and a fractional rate', () => {
    const { ses } = loadConfig({
      SES_SNS_TOPIC_ARNS: ' arn:aws:sns:eu-west-1:123456789012:a , ,arn:aws:sns:eu-west-1:123456789012:b',
      SES_SNS_TRUSTED_HOSTS: '127.0.0.1:8443',
      SES_EVENT_TIMEOUT: '90s',
      SES_MAX_SEND_RATE: '0.5',
      AWS_REGION: 'eu-west-1',
      SES_CONFIGURATION_SET: 'mailroom',
    });
    assert.deepEqual(ses.snsTopicArns, ['arn:aws:sns:eu-west-1:123456789012:a', 'arn:aws:sns:eu-west-1:123456789012:b']);
    assert.deepEqual(ses.snsTrustedHosts, ['127.0.0.1:8443']);
    assert.equal(ses.eventTimeoutMs, 90_000);
    assert.equal(ses.maxSendRate, 0.5);
    assert.equal(ses.region, 'eu-west-1');
    assert.equal(ses.configurationSet, 'mailroom');
    assert.equal(loadConfig({ SES_EVENT_TIMEOUT: '2d' }).ses.eventTimeoutMs, 172_800_000);
    assert.equal(loadConfig({ SES_EVENT_TIMEOUT: '30m' }).ses.eventTimeoutMs, 1_800_000);
  });

  it('refuse a duration without its unit, a rate of 0 and a region that is not one, naming the variable', () => {
    assert.throws(() => loadConfig({ SES_EVENT_TIMEOUT: '48' }), (e: unknown) => e instanceof ConfigError && /SES_EVENT_TIMEOUT/.test(e.message));
    assert.throws(() => loadConfig({ SES_MAX_SEND_RATE: '0' }), (e: unknown) => e instanceof ConfigError && /SES_MAX_SEND_RATE/.test(e.message));
    assert.throws(() => loadConfig({ AWS_REGION: 'Ireland' }), (e: unknown) => e instanceof ConfigError && /AWS_REGION/.test(e.message));
  });
});
