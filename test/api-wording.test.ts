import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { jsonErrorPosition } from '../src/lib/json-error-position.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const SEND = { to: ['ada@example.com'], subject: 'Hi', html: '<p>Hi</p>' };
const BEARER_HINT = '/v1 takes the API key in the x-api-key header; Authorization: Bearer is for the Resend-compatible API at /compat/resend';

describe('the API in its own words', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ LOG_LEVEL: 'silent' });
  });
  after(() => t.close());

  const inject = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: string) =>
    t.app.inject({ method, url, headers: payload === undefined ? headers : { 'content-type': 'application/json', ...headers }, payload });

  it('answers a key sent as Authorization: Bearer on /v1 with SPEC\'s 401 and a hint of where the key goes', async () => {
    for (const [method, url, payload] of [['GET', '/v1/domains', undefined], ['POST', '/v1/send', JSON.stringify({ ...SEND, from_email: 'a@sandbox.mailroom.test' })]] as const) {
      const bearer = await inject(method, url, { authorization: `Bearer ${t.apiKey}` }, payload);
      assert.deepEqual([bearer.statusCode, bearer.json()], [401, { success: false, error: 'Invalid or missing API key', hint: BEARER_HINT }], url);
    }
    // Any Authorization header without x-api-key: Basic too.
    const basic = await inject('GET', '/v1/domains', { authorization: 'Basic YTpi' });
    assert.equal(basic.json().hint, BEARER_HINT);
    // No header at all, or a wrong x-api-key (whatever else is sent): SPEC's body, nothing more.
    assert.deepEqual((await inject('GET', '/v1/domains', {})).json(), { success: false, error: 'Invalid or missing API key' });
    assert.deepEqual((await inject('GET', '/v1/domains', { 'x-api-key': 'mr_wrong', authorization: `Bearer ${t.apiKey}` })).json(), { success: false, error: 'Invalid or missing API key' });
    // The key in x-api-key works whatever Authorization says.
    assert.equal((await inject('GET', '/v1/domains', { 'x-api-key': t.apiKey, authorization: 'Bearer x' })).statusCode, 200);
    // Resend's own API takes the Bearer key as it is.
    assert.equal((await inject('GET', '/compat/resend/domains', { authorization: `Bearer ${t.apiKey}` })).statusCode, 200);
  });

  it('names an unknown field before a missing one, and the /v1 name of a field Resend names otherwise', async () => {
    const send = async (body: unknown, url = '/v1/send') => {
      const res = await inject('POST', url, { 'x-api-key': t.apiKey }, JSON.stringify(body));
      assert.equal(res.statusCode, 400, res.body);
      return res.json().error as string;
    };
    assert.equal(await send({ ...SEND, from: 'a@sandbox.mailroom.test' }), 'from is not a supported field (did you mean from_email?)');
    assert.equal(await send([{ ...SEND, from_email: 'a@sandbox.mailroom.test' }, { ...SEND, from: 'a@sandbox.mailroom.test' }], '/v1/send/batch'), '[1].from is not a supported field (did you mean [1].from_email?)');
    assert.equal(await send({ ...SEND, from_email: 'a@sandbox.mailroom.test', replyTo: 'b@example.com' }), 'replyTo is not a supported field (did you mean reply_to?)');
    // Unknown and missing at once: the unknown first, whatever it is.
    assert.equal(await send({ to: ['ada@example.com'], from_email: 'a@sandbox.mailroom.test', bbc: [] }), 'bbc is not a supported field');
    // Missing alone, as before.
    assert.equal(await send(SEND), 'from_email is required');
  });

  it('says where a malformed JSON body goes wrong, quoting no more of it than the one character', async () => {
    const cases: [string, string][] = [
      ['{"to": [', 'Request body is not valid JSON: it ends too soon, at line 1, column 9'],
      ['{"to": ["ada@example.com"], }', "Request body is not valid JSON: unexpected '}' at line 1, column 29"],
      ['{\n  "subject": "Hi",\n  "html": "<p>Hi</p>"\n  "to": []\n}', 'Request body is not valid JSON: unexpected \'"\' at line 4, column 3'],
      ['{"api_key": mr_secret_value}', "Request body is not valid JSON: unexpected 'm' at line 1, column 13"],
      ['{"text": "a\u0007b"}', 'Request body is not valid JSON: unexpected U+0007 at line 1, column 12'],
      // JSON after all, refused for its __proto__ key: the plain sentence.
      ['{"__proto__": {"admin": true}}', 'Request body is not valid JSON'],
    ];
    for (const [payload, error] of cases) {
      const res = await inject('POST', '/v1/send', { 'x-api-key': t.apiKey }, payload);
      assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error }], payload);
    }
  });

  it('names the setting that allows a webhook to a private address', async () => {
    const res = await t.call('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook' } });
    assert.deepEqual([res.statusCode, res.json().error], [
      400,
      'url points to 127.0.0.1, a loopback address; webhooks may only be sent to public addresses, unless the server runs with WEBHOOK_ALLOW_PRIVATE=true',
    ]);
  });

  it('finds a mistake exactly where JSON.parse refuses the text, and none in text it takes', () => {
    const parses = (text: string) => {
      try {
        JSON.parse(text);
        return true;
      } catch {
        return false;
      }
    };
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), fc.string({ maxLength: 3 }), fc.nat(3), (value, at, insert, remove) => {
        const json = JSON.stringify(value, null, at % 2 === 0 ? undefined : 2);
        assert.equal(jsonErrorPosition(json), undefined, json);
        const cut = at % (json.length + 1);
        const mutated = `${json.slice(0, cut)}${insert}${json.slice(cut + remove)}`;
        assert.equal(jsonErrorPosition(mutated) === undefined, parses(mutated), mutated);
      }),
      { numRuns: 3000 },
    );
  });
});
