import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const WELCOME = {
  name: 'Welcome',
  alias: 'welcome',
  subject: 'Hello {{first_name}}',
  html: '<p>Hi {{first_name}}, you have {{credits}} credits{{#vip}} (VIP){{/vip}}. {{{signature}}}</p>',
  from: 'Acme <hello@acme.test>',
  variables: [
    { key: 'first_name', type: 'string' },
    { key: 'credits', type: 'number', fallback_value: 0 },
    { key: 'vip', type: 'string', fallback_value: '' },
    { key: 'signature', type: 'string', fallback_value: '<b>Acme</b>' },
  ],
};

describe('templates: /v1/templates', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_OTHER_PER_MIN: '100000' });
  });
  after(() => t.close());

  const create = async (body: unknown) => t.call('POST', '/v1/templates', { body });

  it('creates a draft: 201 tpl_… with Resend\'s status fields, readable by id and by alias', async () => {
    const res = await create({ ...WELCOME, alias: 'welcome-1' });
    assert.equal(res.statusCode, 201, res.body);
    const data = res.json().data;
    assert.match(data.id, /^tpl_[0-9a-z]{26}$/);
    assert.equal(data.status, 'draft');
    assert.equal(data.published_at, null);
    assert.equal(data.has_unpublished_versions, true);
    assert.match(data.current_version_id, /^tplv_/);
    assert.equal(data.kind, 'template');
    assert.deepEqual(data.variables[1], { key: 'credits', type: 'number', fallback_value: 0 });
    assert.deepEqual((await t.call('GET', `/v1/templates/${data.id}`)).json().data, data);
    assert.deepEqual((await t.call('GET', '/v1/templates/welcome-1')).json().data, data);
  });

  it('refuses an alias already used in the workspace with 409, but not in another workspace', async () => {
    assert.equal((await create({ ...WELCOME, alias: 'taken' })).statusCode, 201);
    const again = await create({ ...WELCOME, alias: 'taken' });
    assert.equal(again.statusCode, 409);
    assert.deepEqual(again.json(), { success: false, error: 'A template with the alias "taken" already exists' });
    const other = await t.newWorkspace();
    assert.equal((await t.call('POST', '/v1/templates', { key: other.apiKey, body: { ...WELCOME, alias: 'taken' } })).statusCode, 201);
    assert.equal((await t.call('GET', '/v1/templates/taken', { key: other.apiKey })).json().data.workspace_id, undefined);
  });

  it('publishes the draft as version 1, edits make a new draft, and every published version is listed', async () => {
    const id = (await create({ ...WELCOME, alias: 'versions' })).json().data.id;
    const published = (await t.call('POST', `/v1/templates/${id}/publish`)).json().data;
    assert.equal(published.status, 'published');
    assert.equal(published.has_unpublished_versions, false);
    assert.ok(published.published_at);

    const edited = await t.call('PATCH', `/v1/templates/${id}`, { body: { subject: 'Welcome back {{first_name}}' } });
    assert.equal(edited.statusCode, 200, edited.body);
    assert.equal(edited.json().data.has_unpublished_versions, true);
    assert.equal(edited.json().data.status, 'published');
    assert.notEqual(edited.json().data.current_version_id, published.current_version_id);
    assert.equal(edited.json().data.html, WELCOME.html, 'the draft starts from the published content');

    // Before publishing again, sends still see version 1; the preview sees the draft.
    const preview = await t.call('POST', `/v1/templates/${id}/render`, { body: { variables: { first_name: 'Ada' } } });
    assert.equal(preview.json().data.subject, 'Welcome back Ada');
    const v1 = await t.call('POST', `/v1/templates/${id}/render`, { body: { variables: { first_name: 'Ada' }, version: 1 } });
    assert.equal(v1.json().data.subject, 'Hello Ada');

    await t.call('POST', `/v1/templates/${id}/publish`);
    const versions = (await t.call('GET', `/v1/templates/${id}/versions`)).json().data;
    assert.deepEqual(versions.map((v: { version: number; subject: string }) => [v.version, v.subject]), [[2, 'Welcome back {{first_name}}'], [1, 'Hello {{first_name}}']]);
  });

  it('renders {{key}} escaped in HTML (not in the subject), {{{key}}} raw, sections as conditions, fallbacks, and text from the HTML', async () => {
    const id = (await create({ ...WELCOME, alias: 'render' })).json().data.id;
    const res = await t.call('POST', `/v1/templates/${id}/render`, { body: { variables: { first_name: '<Ada & co>', vip: 'yes' } } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().data, {
      subject: 'Hello <Ada & co>',
      html: '<p>Hi &lt;Ada &amp; co&gt;, you have 0 credits (VIP). <b>Acme</b></p>',
      text: 'Hi <Ada & co>, you have 0 credits (VIP). Acme',
    });
  });

  it('answers 400 naming every variable that is unknown, missing or of the wrong type', async () => {
    const id = (await create({ ...WELCOME, alias: 'checks' })).json().data.id;
    const res = await t.call('POST', `/v1/templates/${id}/render`, { body: { variables: { credits: 'lots', nickname: 'x' } } });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), {
      success: false,
      error: 'template variable "nickname" is not declared; template variable "first_name" is missing; template variable "credits" must be a number',
    });
  });

  it('refuses at save a syntax error with its line and column, and a tag naming an undeclared variable', async () => {
    const broken = await create({ name: 'Broken', html: '<p>\n  {{#open}} never closed</p>', variables: [{ key: 'open', type: 'string' }] });
    assert.equal(broken.statusCode, 400);
    assert.equal(broken.json().error, 'html has a syntax error at line 2, column 29: Unclosed section "open"');
    const undeclared = await create({ name: 'Undeclared', html: '{{who}}' });
    assert.equal(undeclared.statusCode, 400);
    assert.equal(undeclared.json().error, 'template uses variable "who", which is not declared');
  });

  it('lists templates newest first, paged, with X-Total-Count', async () => {
    const other = await t.newWorkspace();
    for (const name of ['a', 'b', 'c']) await t.call('POST', '/v1/templates', { key: other.apiKey, body: { name, html: '<p>x</p>' } });
    const page = await t.call('GET', '/v1/templates?limit=2&offset=1', { key: other.apiKey });
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['x-total-count'], '3');
    assert.deepEqual(page.json().data.map((x: { name: string }) => x.name), ['b', 'a']);
  });

  it('duplicates as a new unpublished draft without an alias, and deletes', async () => {
    const id = (await create({ ...WELCOME, alias: 'dup' })).json().data.id;
    await t.call('POST', `/v1/templates/${id}/publish`);
    const copy = await t.call('POST', `/v1/templates/${id}/duplicate`);
    assert.equal(copy.statusCode, 201);
    assert.equal(copy.json().data.name, 'Welcome (copy)');
    assert.equal(copy.json().data.alias, null);
    assert.equal(copy.json().data.status, 'draft');
    assert.equal(copy.json().data.html, WELCOME.html);
    const gone = await t.call('DELETE', `/v1/templates/${id}`);
    assert.deepEqual(gone.json().data, { id, deleted: true });
    assert.deepEqual((await t.call('GET', `/v1/templates/${id}`)).json(), { success: false, error: 'Template not found' });
  });

  it('wraps a template in its layout\'s {{{content}}}, and refuses a layout without it', async () => {
    const refused = await create({ name: 'Bad layout', kind: 'layout', html: '<div>no content</div>' });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().error, /must hold \{\{\{content\}\}\}/);
    const layout = (await create({ name: 'Frame', kind: 'layout', alias: 'frame', html: '<main>{{{content}}}</main>' })).json().data;
    assert.equal(layout.kind, 'layout');
    const id = (await create({ name: 'Inner', html: '<p>{{x}}</p>', layout_id: 'frame', variables: [{ key: 'x', type: 'string' }] })).json().data.id;
    const res = await t.call('POST', `/v1/templates/${id}/render`, { body: { variables: { x: 'hi' } } });
    assert.equal(res.json().data.html, '<main><p>hi</p></main>');
  });

  it('answers 404 for a template of another workspace', async () => {
    const id = (await create({ ...WELCOME, alias: 'mine' })).json().data.id;
    const other = await t.newWorkspace();
    for (const [method, url] of [['GET', `/v1/templates/${id}`], ['PATCH', `/v1/templates/${id}`], ['DELETE', `/v1/templates/${id}`], ['POST', `/v1/templates/${id}/render`]] as const) {
      const res = await t.call(method, url, { key: other.apiKey, body: method === 'PATCH' || method === 'POST' ? {} : undefined });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
    }
  });
});
