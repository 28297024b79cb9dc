import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { classifyClick, classifyOpen, CLICK_RULES, OPEN_RULES, SCANNER_USER_AGENTS, type ClickRequest, type OpenRequest } from '../src/tracking/machine-rules.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const IPHONE_MAIL = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
const MAC_MAIL = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)';
const OUTLOOK = 'Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17726; Pro)';
const THUNDERBIRD = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Thunderbird/128.0';
const GMAIL_PROXY = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';

/** The rules some test saw decide: each rule of the tables must be among them. */
const decided = new Set<string>();
const open = (request: Partial<OpenRequest>) => {
  const verdict = classifyOpen({ method: 'GET', userAgent: CHROME, ...request });
  if (verdict.rule) decided.add(`open:${verdict.rule}`);
  return verdict;
};
const T0 = Date.UTC(2025, 0, 1);
const click = (request: Partial<ClickRequest>) => {
  const verdict = classifyClick({ method: 'GET', userAgent: CHROME, sinceDeliveryMs: 60_000, link: 1, linkCount: 3, earlier: [], at: T0, ...request });
  if (verdict.rule) decided.add(`click:${verdict.rule}`);
  return verdict;
};

describe('classifyOpen', () => {
  it('counts a mail client fetching the pixel itself as a person, no proxy', () => {
    for (const userAgent of [CHROME, IPHONE_MAIL, MAC_MAIL, OUTLOOK, THUNDERBIRD]) {
      assert.deepEqual(open({ userAgent }), { machine: false, proxy: false, rule: null }, userAgent);
    }
  });

  it("counts Apple Mail Privacy Protection's prefetch, whose user agent is exactly Mozilla/5.0, as a machine's, through a proxy", () => {
    for (const userAgent of ['Mozilla/5.0', ' Mozilla/5.0 ']) {
      assert.deepEqual(open({ userAgent }), { machine: true, proxy: true, rule: 'apple-mpp' });
    }
    assert.equal(open({ userAgent: 'Mozilla/5.0 (Macintosh)' }).rule, null);
    assert.equal(open({ userAgent: 'Mozilla/5.01' }).rule, null);
  });

  it("counts Gmail's image proxy as a person, who viewed the message, flagged as a proxy", () => {
    assert.deepEqual(open({ userAgent: GMAIL_PROXY }), { machine: false, proxy: true, rule: 'google-image-proxy' });
    assert.equal(open({ userAgent: 'Mozilla/5.0 (via ggpht.com googleimageproxy)' }).rule, 'google-image-proxy');
  });

  it('counts a HEAD request as a machine, whatever its user agent, in any case', () => {
    for (const method of ['HEAD', 'head']) {
      assert.deepEqual(open({ method, userAgent: GMAIL_PROXY }), { machine: true, proxy: false, rule: 'head-request' });
    }
  });

  it('counts a missing or blank user agent as a machine', () => {
    for (const userAgent of [undefined, '', '  \t']) assert.deepEqual(open({ userAgent }), { machine: true, proxy: false, rule: 'no-user-agent' });
  });

  it('counts a scanner or HTTP library fetching the pixel as a machine', () => {
    assert.deepEqual(open({ userAgent: 'python-requests/2.32.3' }), { machine: true, proxy: false, rule: 'scanner-user-agent' });
  });
});

describe('classifyClick', () => {
  it('counts a browser following a link a while after delivery as a person', () => {
    for (const userAgent of [CHROME, IPHONE_MAIL, THUNDERBIRD]) assert.deepEqual(click({ userAgent }), { machine: false, rule: null });
    assert.deepEqual(click({ sinceDeliveryMs: null }), { machine: false, rule: null });
  });

  it('counts every listed scanner and library, in any case and anywhere in the user agent, as a machine (opens too)', () => {
    for (const { match } of SCANNER_USER_AGENTS) {
      const userAgent = `Mozilla/5.0 (compatible; ${match.toUpperCase()}x 1.0)`;
      assert.deepEqual(click({ userAgent }), { machine: true, rule: 'scanner-user-agent' }, match);
      assert.equal(open({ userAgent }).rule, 'scanner-user-agent', match);
    }
    for (const userAgent of ['curl/8.5.0', 'Go-http-client/1.1', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36', 'Java/17.0.2']) {
      assert.equal(click({ userAgent }).rule, 'scanner-user-agent', userAgent);
    }
  });

  it('counts a HEAD request and a missing user agent as a machine', () => {
    assert.deepEqual(click({ method: 'Head' }), { machine: true, rule: 'head-request' });
    assert.deepEqual(click({ userAgent: undefined }), { machine: true, rule: 'no-user-agent' });
    assert.deepEqual(click({ userAgent: ' ' }), { machine: true, rule: 'no-user-agent' });
  });

  it('counts a click less than 5 s after delivery as a machine', () => {
    for (const sinceDeliveryMs of [0, 4_999, -20]) assert.deepEqual(click({ sinceDeliveryMs }), { machine: true, rule: 'soon-after-delivery' });
    for (const sinceDeliveryMs of [5_000, 3_600_000, null]) assert.equal(click({ sinceDeliveryMs }).rule, null);
  });

  describe('every link clicked at once', () => {
    const at = (ms: number) => T0 + ms;

    it('is a machine when, with this click, every link has been clicked within less than a second', () => {
      const earlier = [
        { at: at(0), link: 2 },
        { at: at(300), link: 1 },
      ];
      assert.deepEqual(click({ link: 3, at: at(999), earlier }), { machine: true, rule: 'every-link-at-once' });
      assert.deepEqual(click({ link: 3, at: at(1_000), earlier }), { machine: false, rule: null });
      // Around this click too: a second from the first to the last is too long.
      assert.equal(click({ link: 1, at: at(500), earlier: [{ at: at(0), link: 2 }, { at: at(999), link: 3 }] }).rule, 'every-link-at-once');
      assert.equal(click({ link: 1, at: at(500), earlier: [{ at: at(0), link: 2 }, { at: at(1_000), link: 3 }] }).rule, null);
    });

    it('holds this click in the window: a person clicking again after a scanner is a person', () => {
      const scanner = [1, 2, 3].map((link) => ({ at: at(link), link }));
      assert.equal(click({ link: 1, at: at(5_000), earlier: scanner }).rule, null);
      // Recorded out of order, a later earlier click still counts inside the window.
      assert.equal(click({ link: 1, at: at(100), earlier: [{ at: at(600), link: 2 }, { at: at(900), link: 3 }] }).rule, 'every-link-at-once');
    });

    it('needs every link, two at least: repeats, numbers out of range and a one-link message do not make it', () => {
      assert.equal(click({ link: 1, at: at(10), earlier: [{ at: at(0), link: 1 }, { at: at(5), link: 2 }, { at: at(6), link: 2 }] }).rule, null);
      assert.equal(click({ link: 1, linkCount: 2, at: at(10), earlier: [{ at: at(0), link: 3 }, { at: at(5), link: 0 }] }).rule, null);
      assert.equal(click({ link: 1, linkCount: 1, at: at(10), earlier: [{ at: at(0), link: 1 }] }).rule, null);
      assert.equal(click({ link: 3, linkCount: 2, at: at(10), earlier: [{ at: at(0), link: 1 }, { at: at(5), link: 2 }] }).rule, null);
      assert.equal(click({ link: 2, linkCount: 2, at: at(10), earlier: [{ at: at(0), link: 1 }] }).rule, 'every-link-at-once');
    });

    it('agrees with trying every window, on any clicks', () => {
      const clicks = fc.array(fc.record({ at: fc.integer({ min: 0, max: 3_000 }), link: fc.integer({ min: 0, max: 5 }) }), { maxLength: 30 });
      fc.assert(
        fc.property(clicks, fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), (earlier, now, link, linkCount) => {
          const all = [...earlier, { at: now, link }];
          // A window [start, start + 1000) holding this click, for each click that could open it.
          const expected =
            linkCount >= 2 &&
            link <= linkCount &&
            all.some(({ at: start }) => start <= now && now - start < 1_000 && Array.from({ length: linkCount }, (_, i) => i + 1).every((n) => all.some((c) => c.link === n && c.at >= start && c.at - start < 1_000)));
          const verdict = classifyClick({ method: 'GET', userAgent: CHROME, sinceDeliveryMs: null, link, linkCount, earlier, at: now });
          assert.equal(verdict.rule === 'every-link-at-once', expected);
        }),
        { numRuns: 2_000 },
      );
    });
  });
});

describe('the rule tables', () => {
  it('give each rule a stable id of its own and a description', () => {
    for (const rules of [OPEN_RULES, CLICK_RULES]) {
      const ids = rules.map((rule) => rule.id);
      assert.equal(new Set(ids).size, ids.length);
      for (const rule of rules) {
        assert.match(rule.id, /^[a-z]+(-[a-z]+)*$/);
        assert.ok(rule.description.length > 20, rule.id);
      }
    }
  });

  it("stand in docs/tracking.md's table, each rule once, in the order they are tried, scanners' user agents listed", () => {
    const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'tracking.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z-]+)` \| ([a-z, ]+) \| ([^|]+) \|/gm)].map((m) => ({ id: m[1]!, appliesTo: m[2]!, matches: m[3]! }));
    const applyingTo = (kind: string) => rows.filter((row) => row.appliesTo.split(', ').includes(kind)).map((row) => row.id);
    assert.deepEqual(applyingTo('open'), OPEN_RULES.map((rule) => rule.id));
    assert.deepEqual(applyingTo('click'), CLICK_RULES.map((rule) => rule.id));
    assert.equal(new Set(rows.map((row) => row.id)).size, rows.length);
    const scanners = rows.find((row) => row.id === 'scanner-user-agent')!.matches;
    for (const { match } of SCANNER_USER_AGENTS) assert.ok(scanners.includes(`\`${match}\``), match);
  });

  it('each decide in some test above: a rule added without one fails here', () => {
    // Tests of a file run in order, so every verdict above is in.
    const expected = [...OPEN_RULES.map((rule) => `open:${rule.id}`), ...CLICK_RULES.map((rule) => `click:${rule.id}`)].sort();
    assert.deepEqual([...decided].sort(), expected);
  });
});
