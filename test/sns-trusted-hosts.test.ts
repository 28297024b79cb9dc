/** SES_SNS_TRUSTED_HOSTS: which SigningCertURL and SubscribeURL hosts may be fetched. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { untrustedUrlReason } from '../src/ses-events/index.js';

const DEFAULT = ['sns.*.amazonaws.com', 'sns.*.amazonaws.com.cn'];

describe('trusted SNS hosts', () => {
  it("takes AWS's regional hosts over https, on 443", () => {
    for (const url of [
      'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-9c6465fa7f48f5cacd23014631ec1136.pem',
      'https://SNS.eu-west-1.amazonaws.com:443/SimpleNotificationService.pem',
      'https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService.pem',
    ]) {
      assert.equal(untrustedUrlReason(url, DEFAULT), null, url);
    }
  });

  it('refuses other schemes, hosts, label counts, ports and credentials', () => {
    const cases: [string, RegExp][] = [
      ['http://sns.us-east-1.amazonaws.com/x.pem', /not https \(http\)/],
      ['https://sns.amazonaws.com/x.pem', /not one of SES_SNS_TRUSTED_HOSTS/],
      ['https://sns.evil.example.amazonaws.com/x.pem', /not one of/],
      ['https://sns.us-east-1.amazonaws.com.evil.example/x.pem', /not one of/],
      ['https://evil.example/sns.us-east-1.amazonaws.com/x.pem', /not one of/],
      ['https://sns.us-east-1.amazonaws.com:8443/x.pem', /its host sns\.us-east-1\.amazonaws\.com:8443 is not one of/],
      ['https://user:pass@sns.us-east-1.amazonaws.com/x.pem', /carries credentials/],
      ['not a url', /not a URL/],
    ];
    for (const [url, reason] of cases) assert.match(untrustedUrlReason(url, DEFAULT) ?? 'trusted', reason, url);
  });

  it('takes a host:port pattern on that port only', () => {
    assert.equal(untrustedUrlReason('https://127.0.0.1:8443/x.pem', ['127.0.0.1:8443']), null);
    assert.match(untrustedUrlReason('https://127.0.0.1:8444/x.pem', ['127.0.0.1:8443']) ?? '', /not one of/);
    assert.match(untrustedUrlReason('https://127.0.0.1/x.pem', ['127.0.0.1:8443']) ?? '', /not one of/);
  });
});
