/**
 * Tags (issue 16, point 4): `tags: [{name, value}]` on a send or a batch item,
 * kept with the message, answered as an object in log entries (bounce entries
 * too) and the message's detail, and searched with `tag=name:value`. Through
 * the real app, on the store of the run; webhooks through a real SMTP relay
 * are in tags-smtp.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createInboundReportService } from '../src/inbound/inbound-report-service.js';
import { createTestApp, sendBody, writtenRows, type TestApp } from './helpers/test-app.js';

type Entry = { id: string; type: string; to: string; message_id: string; tags: Record<string, string> };

const tags = (pairs: Record<string, string>) => Object.entries(pairs).map(([name, value]) => ({ name, value }));
const twentyOne = Array.from({ length: 21 }, (_, i) => ({ name: `t${i}`, value: 'v' }));

describe('tags on sends, log entries, message detail and the logs filter', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000' });
  });
  after(() => t.close());

  const send = async (body: Record<string, unknown>, app = t, key?: string) => {
    const res = await app.call('POST', '/v1/send', { body: sendBody(body), ...(key ? { key } : {}) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.message_id as string;
  };
  const logs = async (query: string) => {
    const res = await t.call('GET', `/v1/send/logs?${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return { entries: res.json().data as Entry[], total: Number(res.headers['x-total-count']), relation: res.headers['x-total-count-relation'] };
  };

  it('keeps tags with the message and answers them, as an object in request order, on every log entry and in the detail', async () => {
    const id = await send({ to: ['ada@example.com'], cc: ['grace@example.com'], tags: tags({ plan: 'pro', order_id: 'ord-42', 'user-Id_7': 'A-b_9' }) });
    const { entries } = await logs(`message_id=${id}`);
    assert.equal(entries.length, 2);
    for (const entry of entries) {
      assert.deepEqual(entry.tags, { plan: 'pro', order_id: 'ord-42', 'user-Id_7': 'A-b_9' });
      assert.deepEqual(Object.keys(entry.tags), ['plan', 'order_id', 'user-Id_7'], 'in request order');
      assert.deepEqual(Object.keys(entry).at(-1), 'tags');
    }
    const detail = (await t.call('GET', `/v1/messages/${id}`)).json().data;
    assert.deepEqual(detail.tags, { plan: 'pro', order_id: 'ord-42', 'user-Id_7': 'A-b_9' });
    assert.deepEqual(Object.keys(detail.tags), ['plan', 'order_id', 'user-Id_7']);

    const plain = await send({ tags: null });
    assert.deepEqual((await logs(`message_id=${plain}`)).entries.map((e) => e.tags), [{}], 'no tags: {}');
    assert.deepEqual((await t.call('GET', `/v1/messages/${plain}`)).json().data.tags, {});
  });

  it('takes the longest name and value and 20 tags', async () => {
    const long = 'x'.repeat(256);
    const id = await send({ tags: [{ name: long, value: long }, ...twentyOne.slice(0, 19)] });
    const detail = (await t.call('GET', `/v1/messages/${id}`)).json().data;
    assert.equal(Object.keys(detail.tags).length, 20);
    assert.equal(detail.tags[long], long);
    assert.deepEqual((await logs(`tag=${long}:${long}`)).entries.map((e) => e.message_id), [id]);
  });

  const refused: [string, unknown, string][] = [
    ['21 tags', twentyOne, 'tags must contain at most 20 tags (got 21)'],
    ['a space in a name', tags({ plan: 'pro', env: 'prod', 'a b': 'x' }), 'tags[2].name must be 1 to 256 ASCII letters, digits, _ or - (got "a b")'],
    ['an empty name', [{ name: '', value: 'x' }], 'tags[0].name must be 1 to 256 ASCII letters, digits, _ or - (got "")'],
    ['an empty value', [{ name: 'plan', value: '' }], 'tags[0].value must be 1 to 256 ASCII letters, digits, _ or - (got "")'],
    ['a colon in a value', [{ name: 'plan', value: 'a:b' }], 'tags[0].value must be 1 to 256 ASCII letters, digits, _ or - (got "a:b")'],
    ['a non-ASCII value', [{ name: 'city', value: 'Köln' }], 'tags[0].value must be 1 to 256 ASCII letters, digits, _ or - (got "Köln")'],
    ['a 257-character name', [{ name: 'n'.repeat(257), value: 'x' }], `tags[0].name must be 1 to 256 ASCII letters, digits, _ or - (got "${'n'.repeat(257)}")`],
    ['a name given twice', tags({ plan: 'pro' }).concat(tags({ plan: 'free' })), 'tags[1].name "plan" is given twice'],
    ['a tag without a value', [{ name: 'plan' }], 'tags[0].value is required'],
    ['a value that is not a string', [{ name: 'n', value: 1 }], 'tags[0].value must be a string'],
    ['a tag field besides name and value', [{ name: 'plan', value: 'pro', colour: 'red' }], 'tags[0].colour is not a supported field'],
    ['a tag that is not an object', ['plan:pro'], 'tags[0] must be a JSON object'],
    ['tags as an object', { plan: 'pro' }, 'tags must be an array'],
  ];
  for (const [name, value, error] of refused) {
    it(`refuses ${name} with 400 and writes nothing`, async () => {
      const before = await writtenRows(t.db);
      const res = await t.call('POST', '/v1/send', { body: sendBody({ tags: value }) });
      assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error }]);
      assert.deepEqual(await writtenRows(t.db), before);
    });
  }

  it('refuses a misspelt `tag` field, and a batch with one bad item, writing nothing', async () => {
    const before = await writtenRows(t.db);
    const misspelt = await t.call('POST', '/v1/send', { body: sendBody({ tag: tags({ plan: 'pro' }) }) });
    assert.deepEqual([misspelt.statusCode, misspelt.json()], [400, { success: false, error: 'tag is not a supported field' }]);
    const batch = await t.call('POST', '/v1/send/batch', { body: [sendBody({ tags: tags({ plan: 'pro' }) }), sendBody({ tags: [{ name: 'a.b', value: 'x' }] })] });
    assert.deepEqual([batch.statusCode, batch.json()], [400, { success: false, error: '[1].tags[0].name must be 1 to 256 ASCII letters, digits, _ or - (got "a.b")' }]);
    assert.deepEqual(await writtenRows(t.db), before);
  });

  it("keeps each batch item's own tags", async () => {
    const res = await t.call('POST', '/v1/send/batch', {
      body: [sendBody({ to: ['b1@example.com'], tags: tags({ batch: 'b', item: '0' }) }), sendBody({ to: ['b2@example.com'] }), sendBody({ to: ['b3@example.com'], tags: tags({ batch: 'b', item: '2' }) })],
    });
    assert.equal(res.statusCode, 200, res.body);
    const ids = (res.json().data as { message_id: string }[]).map((r) => r.message_id);
    const found = await logs('tag=batch:b');
    assert.deepEqual(found.entries.map((e) => [e.message_id, e.to, e.tags]), [
      [ids[2], 'b3@example.com', { batch: 'b', item: '2' }],
      [ids[0], 'b1@example.com', { batch: 'b', item: '0' }],
    ]);
    assert.deepEqual([found.total, found.relation], [2, 'eq']);
    assert.deepEqual((await t.call('GET', `/v1/messages/${ids[1]}`)).json().data.tags, {});
  });

  it('filters the log by tag=name:value, with the other filters and with keyset paging, in this workspace only', async () => {
    const other = await t.newWorkspace();
    await send({ to: ['ada@example.com'], tags: tags({ campaign: 'spring' }) }, t, other.apiKey);
    const spring: string[] = [];
    for (let i = 0; i < 5; i++) spring.push(await send({ to: [`s${i}@example.com`, 'ada@example.com'], tags: tags({ env: 'prod', campaign: 'spring' }) }));
    await send({ to: ['ada@example.com'], tags: tags({ campaign: 'summer' }) });
    await send({ to: ['ada@example.com'], tags: tags({ springs: 'spring' }) });

    const all = await logs('tag=campaign:spring');
    assert.equal(all.entries.length, 10);
    assert.ok(all.entries.every((e) => spring.includes(e.message_id) && e.tags.campaign === 'spring'), 'only the tagged messages of this workspace');
    assert.deepEqual([all.total, all.relation], [10, 'eq']);
    const sorted = [...all.entries].sort((a, b) => b.id.localeCompare(a.id));
    assert.deepEqual(all.entries.map((e) => e.id), sorted.map((e) => e.id), 'newest first');

    const ada = await logs('tag=campaign:spring&to=ADA@example.com&type=send');
    assert.deepEqual([ada.entries.length, ada.total], [5, 5]);
    assert.ok(ada.entries.every((e) => e.to === 'ada@example.com'));
    assert.deepEqual((await logs(`tag=campaign:spring&message_id=${spring[2]}`)).entries.map((e) => e.message_id), [spring[2], spring[2]]);
    assert.deepEqual((await logs(`tag=campaign:summer&message_id=${spring[2]}`)).entries, []);
    assert.deepEqual((await logs('tag=campaign:autumn')).entries, []);
    assert.equal((await logs(`tag=campaign:spring&since=${new Date(Date.now() + 60_000).toISOString()}`)).total, 0);

    // Keyset paging: pages of 3 after each page's last entry, with the filter, make up the whole list.
    const paged: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await logs(`tag=campaign:spring&limit=3${before ? `&before=${before}` : ''}`);
      assert.equal(page.total, 10, 'the total is the filter\'s, whatever the page');
      if (page.entries.length === 0) break;
      paged.push(...page.entries.map((e) => e.id));
      // Never more than the whole list: paging that did not move on would otherwise go on for ever.
      if (paged.length > all.entries.length) break;
      before = page.entries.at(-1)!.id;
    }
    assert.deepEqual(paged, all.entries.map((e) => e.id));
    assert.deepEqual((await logs('tag=campaign:spring&limit=3&offset=3')).entries.map((e) => e.id), paged.slice(3, 6));
  });

  const badFilters: [string, string][] = [
    ['plan', 'tag must be name:value, each 1 to 256 ASCII letters, digits, _ or - (got "plan")'],
    ['plan:', 'tag must be name:value, each 1 to 256 ASCII letters, digits, _ or - (got "plan:")'],
    [':pro', 'tag must be name:value, each 1 to 256 ASCII letters, digits, _ or - (got ":pro")'],
    ['pl an:pro', 'tag must be name:value, each 1 to 256 ASCII letters, digits, _ or - (got "pl an:pro")'],
    ['plan:a:b', 'tag must be name:value, each 1 to 256 ASCII letters, digits, _ or - (got "plan:a:b")'],
  ];
  for (const [value, error] of badFilters) {
    it(`answers 400 for the logs filter tag=${value}`, async () => {
      const res = await t.call('GET', `/v1/send/logs?tag=${encodeURIComponent(value)}`);
      assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error }]);
    });
  }

  it('counts a tag exactly up to 1,000 matching entries, and beyond that answers 1000 and gte', async () => {
    const batch = (n: number) => Array.from({ length: n }, (_, i) => sendBody({ to: [`many${i}@example.com`], tags: tags({ load: 'many' }) }));
    for (let i = 0; i < 10; i++) assert.equal((await t.call('POST', '/v1/send/batch', { body: batch(100) })).statusCode, 200);
    const exact = await logs('tag=load:many&limit=1');
    assert.deepEqual([exact.total, exact.relation], [1000, 'eq']);
    await send({ to: ['one-more@example.com'], tags: tags({ load: 'many' }) });
    const capped = await logs('tag=load:many&limit=1');
    assert.deepEqual([capped.total, capped.relation, capped.entries[0]?.to], [1000, 'gte', 'one-more@example.com']);
  });

  it("carries the message's tags on its bounce entry, which the tag filter finds", async () => {
    const id = await send({ to: ['grace@example.net', 'ada@example.com'], tags: tags({ flow: 'bounced' }) });
    const report = readFileSync(join(import.meta.dirname, 'fixtures', 'inbound', 'postfix-bounce-verp.eml'), 'utf8').replaceAll('msg_01abc', id);
    const returnPath = t.returnPaths.sign(id, 0, 'mr-bounces.sandbox.mailroom.test');
    const verdict = await createInboundReportService(t.store, t.returnPaths).record(Buffer.from(report), [returnPath]);
    assert.equal(verdict.outcome, 'recorded');
    const bounces = await logs('tag=flow:bounced&type=bounce');
    assert.deepEqual(bounces.entries.map((e) => [e.type, e.to, e.message_id, e.tags]), [['bounce', 'grace@example.net', id, { flow: 'bounced' }]]);
    assert.deepEqual((await logs(`message_id=${id}&type=bounce`)).entries.map((e) => e.tags), [{ flow: 'bounced' }]);
    assert.equal((await logs('tag=flow:bounced')).total, 3, 'two send entries and the bounce entry');
  });

  it("carries the message's tags on its complaint entry", async () => {
    const id = await send({ to: ['grace.hopper@yahoo.example'], tags: tags({ flow: 'complained' }) });
    const returnPath = t.returnPaths.sign(id, 0, 'mr-bounces.sandbox.mailroom.test');
    const report = readFileSync(join(import.meta.dirname, 'fixtures', 'inbound', 'yahoo-arf-complaint.eml'), 'utf8')
      .replaceAll('msg_01def', id)
      .replaceAll(`bounce+${id}@mr-bounces.acme.example`, returnPath);
    const verdict = await createInboundReportService(t.store, t.returnPaths).record(Buffer.from(report), ['fbl@acme.example']);
    assert.deepEqual(verdict.results.map((r) => r.effect), ['move']);
    const found = await logs('tag=flow:complained&type=complaint');
    assert.deepEqual(found.entries.map((e) => [e.type, e.to, e.tags]), [['complaint', 'grace.hopper@yahoo.example', { flow: 'complained' }]]);
  });

  it('puts the tags in the events of recipients settled at acceptance (failed, suppressed)', async () => {
    await t.call('POST', '/v1/suppressions', { body: { email: 'listed@example.com' } });
    const failed = await send({ from_email: 'x@unverified.example', tags: tags({ flow: 'failed' }) });
    const suppressed = await send({ to: ['listed@example.com'], tags: tags({ flow: 'suppressed' }) });
    for (const [id, type, flow] of [[failed, 'failed', 'failed'], [suppressed, 'suppressed', 'suppressed']] as const) {
      const events = await t.store.messageEvents.listForMessage(id);
      assert.deepEqual(events.map((e) => [e.type, JSON.parse(e.payload).tags]), [[type, { flow }]]);
    }
  });
});
