/**
 * A user agent in a few words ("Chrome 120 on Windows", "Apple Mail on macOS"):
 * a timeline line has no room for 150 characters of tokens, and the browser
 * and system are what a reader of the timeline asks about. The string as sent
 * stays in the element's title. Not a full parser: what it does not know it
 * shows as its first product token, which for a script or scanner is its name.
 */

/** Clients, first match winning: an Edge or Opera user agent also names Chrome and Safari. */
const CLIENTS: ReadonlyArray<[RegExp, string]> = [
  [/GoogleImageProxy/i, 'Gmail’s image proxy'],
  [/YahooMailProxy/i, 'Yahoo Mail’s image proxy'],
  [/Thunderbird\/(\d+)/, 'Thunderbird $1'],
  [/Microsoft Outlook|\bMSOffice|ms-office/i, 'Outlook'],
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, 'Edge $1'],
  [/\bOPR\/(\d+)/, 'Opera $1'],
  [/SamsungBrowser\/(\d+)/, 'Samsung Internet $1'],
  [/\b(?:Firefox|FxiOS)\/(\d+)/, 'Firefox $1'],
  [/HeadlessChrome\/(\d+)/, 'Headless Chrome $1'],
  [/\b(?:Chrome|CriOS)\/(\d+)/, 'Chrome $1'],
  [/Version\/(\d+(?:\.\d+)?).*Safari\//, 'Safari $1'],
  // Apple Mail's WebKit view names no browser after WebKit's own token.
  [/\((?:Macintosh|iPhone|iPad)[^)]*\) AppleWebKit\/[\d.]+ \(KHTML, like Gecko\)(?: Mobile\/\w+)?$/, 'Apple Mail'],
];

const SYSTEMS: ReadonlyArray<[RegExp, string]> = [
  [/iPhone OS (\d+)_(\d+)/, 'iOS $1.$2'],
  [/iPad.*OS (\d+)_(\d+)/, 'iPadOS $1.$2'],
  [/\biPhone\b/, 'iOS'],
  [/\biPad\b/, 'iPadOS'],
  [/Android (\d+)/, 'Android $1'],
  [/Windows NT/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

const LONGEST = 48;

function first(table: ReadonlyArray<[RegExp, string]>, ua: string): string | null {
  for (const [pattern, name] of table) {
    const match = pattern.exec(ua);
    if (match) return name.replace(/\$(\d)/g, (_, n: string) => match[Number(n)] ?? '');
  }
  return null;
}

export function shortUserAgent(ua: string | null): string {
  const text = (ua ?? '').trim();
  if (text === '') return 'no user agent';
  const client = first(CLIENTS, text);
  const system = first(SYSTEMS, text);
  if (client && system && !client.endsWith('proxy')) return `${client} on ${system}`;
  if (client) return client;
  const token = text.split(/\s+/)[0]!;
  const named = system && token.startsWith('Mozilla/') && text !== token ? `a browser on ${system}` : token;
  return named.length > LONGEST ? `${named.slice(0, LONGEST - 1)}…` : named;
}
