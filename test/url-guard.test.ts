import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import {
  assertPublicWebhookTarget,
  nonPublicReason,
  pinnedLookup,
  resolvePublicTarget,
  WebhookTargetError,
  type HostResolver,
} from '../src/webhooks/url-guard.js';

/** A resolver that knows a few names and fails any other as DNS does. */
const NAMES: Record<string, string[]> = {
  'internal.example': ['10.1.2.3'],
  'mixed.example': ['93.184.216.34', '192.168.1.10'],
  'mapped.example': ['::ffff:169.254.169.254'],
  'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
};
const fakeResolver: HostResolver = async (host) => {
  const found = NAMES[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

const SUFFIX = 'webhooks may only be sent to public addresses, unless the server runs with WEBHOOK_ALLOW_PRIVATE=true';
const refusals: [string, string][] = [
  ['http://127.0.0.1', `url points to 127.0.0.1, a loopback address; ${SUFFIX}`],
  ['http://127.0.0.1:3000/hook', `url points to 127.0.0.1, a loopback address; ${SUFFIX}`],
  ['http://169.254.169.254/latest/meta-data/', `url points to 169.254.169.254, a cloud metadata address; ${SUFFIX}`],
  ['http://169.254.1.1', `url points to 169.254.1.1, a link-local address; ${SUFFIX}`],
  ['http://10.0.0.1', `url points to 10.0.0.1, a private address; ${SUFFIX}`],
  ['https://172.16.5.4/x', `url points to 172.16.5.4, a private address; ${SUFFIX}`],
  ['http://192.168.0.1', `url points to 192.168.0.1, a private address; ${SUFFIX}`],
  ['http://100.64.0.1', `url points to 100.64.0.1, a shared (carrier-grade NAT) address; ${SUFFIX}`],
  ['http://0.0.0.0', `url points to 0.0.0.0, a "this network" address; ${SUFFIX}`],
  ['http://224.0.0.1', `url points to 224.0.0.1, a multicast address; ${SUFFIX}`],
  ['http://255.255.255.255', `url points to 255.255.255.255, a reserved address; ${SUFFIX}`],
  // Other spellings of loopback that the URL parser normalises.
  ['http://2130706433/', `url points to 127.0.0.1, a loopback address; ${SUFFIX}`],
  ['http://0x7f.1/', `url points to 127.0.0.1, a loopback address; ${SUFFIX}`],
  ['http://[::1]', `url points to ::1, a loopback address; ${SUFFIX}`],
  ['http://[::]', `url points to ::, the unspecified address; ${SUFFIX}`],
  ['http://[::ffff:127.0.0.1]', `url points to ::ffff:7f00:1, a loopback address; ${SUFFIX}`],
  ['http://[::ffff:a9fe:a9fe]', `url points to ::ffff:a9fe:a9fe, a cloud metadata address; ${SUFFIX}`],
  ['http://[64:ff9b::10.0.0.1]', `url points to 64:ff9b::a00:1, a private address; ${SUFFIX}`],
  ['http://[2002:c0a8:101::1]', `url points to 2002:c0a8:101::1, a private address; ${SUFFIX}`],
  ['http://[fe80::1]', `url points to fe80::1, a link-local address; ${SUFFIX}`],
  ['http://[fd12:3456::1]', `url points to fd12:3456::1, a unique-local address; ${SUFFIX}`],
  ['http://[fd00:ec2::254]', `url points to fd00:ec2::254, a cloud metadata address; ${SUFFIX}`],
  ['http://[ff02::1]', `url points to ff02::1, a multicast address; ${SUFFIX}`],
  ['http://[2001:db8::1]', `url points to 2001:db8::1, a documentation address; ${SUFFIX}`],
  ['http://internal.example/hook', `url host internal.example resolves to 10.1.2.3, a private address; ${SUFFIX}`],
  ['https://mixed.example/hook', `url host mixed.example resolves to 192.168.1.10, a private address; ${SUFFIX}`],
  ['https://mapped.example/hook', `url host mapped.example resolves to ::ffff:169.254.169.254, a cloud metadata address; ${SUFFIX}`],
];

const malformed: [string, string][] = [
  ['ftp://93.184.216.34/hook', 'url must be an http or https URL (got ftp)'],
  ['file:///etc/passwd', 'url must be an http or https URL (got file)'],
  ['gopher://93.184.216.34', 'url must be an http or https URL (got gopher)'],
  ['not a url', 'url must be an absolute http or https URL'],
  ['/relative/hook', 'url must be an absolute http or https URL'],
  ['', 'url must be an absolute http or https URL'],
  ['https://user:hunter2@93.184.216.34/hook', 'url must not contain a user name or password'],
  ['https://nowhere.example/hook', 'url host nowhere.example could not be resolved (ENOTFOUND)'],
];

async function refusal(url: string, allowPrivate: boolean): Promise<WebhookTargetError> {
  try {
    await assertPublicWebhookTarget(url, allowPrivate, fakeResolver);
  } catch (error) {
    assert.ok(error instanceof WebhookTargetError, `${url}: ${String(error)}`);
    return error;
  }
  assert.fail(`${url} was accepted`);
}

describe('the SSRF rule for webhook targets', () => {
  for (const [url, message] of refusals) {
    it(`refuses ${url}, saying why`, async () => {
      const error = await refusal(url, false);
      assert.equal(error.message, message);
      assert.equal(error.statusCode, 400);
      assert.equal(error.kind, 'not_public');
    });
  }

  for (const [url, message] of malformed) {
    it(`refuses ${JSON.stringify(url)} whatever WEBHOOK_ALLOW_PRIVATE says`, async () => {
      for (const allowPrivate of [false, true]) assert.equal((await refusal(url, allowPrivate)).message, message);
    });
  }

  it('accepts public addresses and names that resolve only to public addresses', async () => {
    for (const url of ['https://93.184.216.34/hook', 'http://8.8.8.8:8080/x?y=1', 'https://[2606:4700:4700::1111]/hook', 'https://public.example/hook']) {
      await assertPublicWebhookTarget(url, false, fakeResolver);
    }
    assert.deepEqual(await resolvePublicTarget('https://public.example/hook', false, fakeResolver).then((t) => [t.host, t.addresses, t.url.href]), [
      'public.example',
      NAMES['public.example'],
      'https://public.example/hook',
    ]);
    // An IP literal is its own address: no lookup.
    const literal = await resolvePublicTarget('https://[2606:4700:4700::1111]/hook', false, () => assert.fail('no lookup for a literal'));
    assert.deepEqual([literal.host, literal.addresses], ['2606:4700:4700::1111', ['2606:4700:4700::1111']]);
  });

  it('accepts every private target when WEBHOOK_ALLOW_PRIVATE is true, and still answers the addresses', async () => {
    for (const [url] of refusals) await assertPublicWebhookTarget(url, true, fakeResolver);
    assert.deepEqual((await resolvePublicTarget('http://internal.example/hook', true, fakeResolver)).addresses, ['10.1.2.3']);
  });

  it('is off by default, and WEBHOOK_ALLOW_PRIVATE=true turns it on', () => {
    assert.equal(loadConfig({}).webhooks.allowPrivate, false);
    assert.equal(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' }).webhooks.allowPrivate, true);
  });

  it('resolves with the system resolver by default: localhost is refused', async () => {
    await assert.rejects(assertPublicWebhookTarget('http://localhost:3000/hook', false), (error: unknown) => {
      assert.ok(error instanceof WebhookTargetError);
      assert.match(error.message, /^url host localhost resolves to (127\.0\.0\.1|::1), a loopback address; /);
      return true;
    });
  });

  it('classifies addresses', () => {
    const publicOnes = ['93.184.216.34', '1.1.1.1', '100.63.255.255', '100.128.0.0', '172.32.0.1', '2606:4700:4700::1111', '::ffff:93.184.216.34', '64:ff9b::93.184.216.34'];
    for (const address of publicOnes) assert.equal(nonPublicReason(address), undefined, address);
    assert.equal(nonPublicReason('::ffff:10.0.0.1'), 'a private address');
    assert.equal(nonPublicReason('198.18.0.1'), 'a reserved address');
    assert.equal(nonPublicReason('4000::1'), 'a reserved address', 'outside global unicast 2000::/3');
    assert.equal(nonPublicReason('example.com'), 'not an IP address');
  });

  describe('pinnedLookup: a delivery connects only to the vetted addresses (DNS rebinding)', () => {
    let server: ReturnType<typeof createServer>;
    let port: number;
    before(async () => {
      server = createServer((req, res) => res.end(`host=${req.headers.host}`));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('posts to the vetted address whatever the name would resolve to now, keeping the Host header', async () => {
      const target = await resolvePublicTarget(`http://rebinding.example:${port}/hook`, true, async () => ['127.0.0.1']);
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(target.url, { method: 'POST', lookup: pinnedLookup(target.addresses) }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end('{}');
      });
      assert.equal(body, `host=rebinding.example:${port}`);
    });

    it('answers the addresses in both callback forms, and refuses a family it has none of', async () => {
      const lookup = pinnedLookup(['93.184.216.34', '2606:4700:4700::1111']);
      const call = (options: object) =>
        new Promise<unknown[]>((resolve) => lookup('x.example', options as never, (...args: unknown[]) => resolve(args)));
      assert.deepEqual(await call({}), [null, '93.184.216.34', 4]);
      assert.deepEqual(await call({ family: 6 }), [null, '2606:4700:4700::1111', 6]);
      assert.deepEqual(await call({ all: true }), [null, [{ address: '93.184.216.34', family: 4 }, { address: '2606:4700:4700::1111', family: 6 }]]);
      const [error] = await new Promise<unknown[]>((resolve) => pinnedLookup(['93.184.216.34'])('x', { family: 6 }, (...args: unknown[]) => resolve(args)));
      assert.equal((error as NodeJS.ErrnoException).code, 'ENOTFOUND');
    });
  });
});
