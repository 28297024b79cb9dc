import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compileTemplate, RenderBudget, RenderLimitError, renderTemplate } from '../src/templates/template-language.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

// Templates written to break out, blow up or hang: each is refused with its reason, and the server answers on.
describe('templates: hostile templates', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_OTHER_PER_MIN: '100000' });
  });
  after(() => t.close());

  const save = (html: string, variables: unknown[] = []) => t.call('POST', '/v1/templates', { body: { name: 'Hostile', html, variables } });
  const refusal = async (html: string, variables: unknown[] = []) => {
    const res = await save(html, variables);
    assert.equal(res.statusCode, 400, res.body);
    return res.json().error as string;
  };

  for (const tag of ['{{constructor}}', '{{__proto__}}', '{{lookup}}', '{{constructor.name}}', '{{{toString}}}', '{{#hasOwnProperty}}x{{/hasOwnProperty}}', '{{.}}']) {
    it(`refuses ${tag} at save: it names no declared variable`, async () => {
      assert.match(await refusal(`<p>${tag}</p>`), /^template uses variable ".+", which is not declared$/);
    });
  }

  it('reaches only the values given, even for a declared key named like a prototype property', async () => {
    const res = await save('<p>[{{constructor}}][{{#valueOf}}set{{/valueOf}}]</p>', [
      { key: 'constructor', type: 'string', fallback_value: '' },
      { key: 'valueOf', type: 'string', fallback_value: '' },
    ]);
    assert.equal(res.statusCode, 201, res.body);
    const rendered = await t.call('POST', `/v1/templates/${res.json().data.id}/render`, { body: {} });
    assert.equal(rendered.json().data.html, '<p>[][]</p>');
    assert.equal((await t.call('POST', '/v1/templates', { body: { name: 'x', html: 'x', variables: [{ key: '__proto__', type: 'string' }] } })).statusCode, 400);
  });

  it('refuses partials: a template cannot include another, or a file', async () => {
    assert.equal(await refusal('<p>\n{{> /etc/passwd}}</p>'), 'html includes a partial at line 2, column 1: templates cannot include others');
  });

  it('refuses sections nested past 32 deep, even 40 000 deep, without overflowing a stack', async () => {
    const nest = (n: number) => '{{#a}}'.repeat(n) + 'x' + '{{/a}}'.repeat(n);
    const a = [{ key: 'a', type: 'string', fallback_value: 'y' }];
    assert.match(await refusal(nest(33), a), /^html nests sections more than 32 deep at line 1, column 193$/);
    assert.match(await refusal(nest(40_000), a), /nests sections more than 32 deep/);
    // 32 deep is allowed, and renders in one pass: with no lists, nothing loops.
    const ok = await save(nest(32), a);
    assert.equal(ok.statusCode, 201);
    assert.equal((await t.call('POST', `/v1/templates/${ok.json().data.id}/render`, { body: {} })).json().data.html, 'x');
  });

  it('refuses a list (or any value that is not a string or number) as a variable: sections never loop', async () => {
    const id = (await save('{{#items}}{{items}}{{/items}}', [{ key: 'items', type: 'string' }])).json().data.id;
    const res = await t.call('POST', `/v1/templates/${id}/render`, { body: { variables: { items: Array(1000).fill('x') } } });
    assert.deepEqual(res.json(), { success: false, error: 'template variable "items" must be a string' });
  });

  it('refuses a template over 512 KB at save', async () => {
    assert.equal(await refusal('x'.repeat(512 * 1024 + 1)), 'html is larger than 512 KB');
  });

  it('fails a render that would produce over 5 MB (10 MB asked for), and the server answers on', async () => {
    const id = (await save('{{{big}}}'.repeat(10), [{ key: 'big', type: 'string' }])).json().data.id;
    const res = await t.call('POST', `/v1/templates/${id}/render`, { body: { variables: { big: 'x'.repeat(1024 * 1024) } } });
    assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error: 'template rendering produced more than 5 MB' }]);
    assert.equal((await t.call('GET', '/v1/health/check', { key: null })).statusCode, 200);
    assert.equal((await t.call('GET', '/v1/templates')).statusCode, 200);
  });

  it('previews and sends HTML nested 20 000 elements deep without overflowing a stack: its text is made within bounds', async () => {
    const html = `${'<div>'.repeat(20_000)}deep{{name}}${'</div>'.repeat(20_000)}`;
    const res = await t.call('POST', '/v1/templates', { body: { name: 'Nested', alias: 'nested-html', subject: 'Deep', from: 'Deep <deep@sandbox.mailroom.test>', html, variables: [{ key: 'name', type: 'string' }] } });
    assert.equal(res.statusCode, 201, res.body);
    const preview = await t.call('POST', '/v1/templates/nested-html/render', { body: { variables: { name: 'Ada' } } });
    assert.equal(preview.statusCode, 200, preview.body);
    assert.equal(typeof preview.json().data.text, 'string');
    await t.call('POST', '/v1/templates/nested-html/publish');
    const sent = await t.call('POST', '/v1/send', { body: { to: ['ada@example.com'], template: { id: 'nested-html', variables: { name: 'Ada' } } } });
    assert.deepEqual([sent.statusCode, sent.json().data.status], [200, 'sent']);
    assert.equal((await t.call('GET', '/v1/health/check', { key: null })).statusCode, 200);
  });

  it('stops a render at its deadline, between tokens, with the sentence a send answers', () => {
    const compiled = compileTemplate('html', '<p>{{a}}</p>'.repeat(5_000));
    const values = Object.assign(Object.create(null), { a: 'x' });
    assert.equal(renderTemplate(compiled, values, new RenderBudget(), 'html').length, '<p>x</p>'.length * 5_000);
    // A deadline already passed: the first look at the clock, 256 tokens in, ends it.
    assert.throws(() => renderTemplate(compiled, values, new RenderBudget(0), 'html'), new RenderLimitError('template rendering took longer than 50 ms'));
  });
});
