/**
 * The message timeline's user agents in a few words (web/src/features/messages/user-agent.ts):
 * browser or mail client and system, image proxies by name, anything else by its first token.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shortUserAgent } from '../web/src/features/messages/user-agent.js';

const SHORT: [string | null, string][] = [
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36', 'Chrome 120 on Windows'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91', 'Edge 120 on Windows'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15', 'Safari 17.2 on macOS'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)', 'Apple Mail on macOS'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148', 'Apple Mail on iOS 17.1'],
  ['Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/119.0.6045.169 Mobile/15E148 Safari/604.1', 'Chrome 119 on iPadOS 16.6'],
  ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.43 Mobile Safari/537.36', 'Chrome 120 on Android 14'],
  ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0', 'Firefox 121 on Linux'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:115.0) Gecko/20100101 Thunderbird/115.5.2', 'Thunderbird 115 on Windows'],
  ['Mozilla/4.0 (compatible; ms-office; MSOffice 16)', 'Outlook'],
  ['Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)', 'Gmail’s image proxy'],
  ['YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html', 'Yahoo Mail’s image proxy'],
  ['Mozilla/5.0', 'Mozilla/5.0'],
  ['python-requests/2.31.0', 'python-requests/2.31.0'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) SomethingNew/3', 'a browser on Windows'],
  [`x-${'scanner'.repeat(10)}/1.0 (compatible)`, `x-${'scanner'.repeat(10)}`.slice(0, 47) + '…'],
  ['   ', 'no user agent'],
  [null, 'no user agent'],
];

describe('user agents on the timeline', () => {
  it('names the browser or mail client and the system, proxies by name, anything else by its first token', () => {
    assert.deepEqual(SHORT.map(([ua]) => shortUserAgent(ua)), SHORT.map(([, short]) => short));
  });
});
