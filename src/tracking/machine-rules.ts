export interface OpenRequest {
  method: string;
  userAgent: string | undefined;
}

export interface OpenVerdict {
  machine: boolean;
  /** Fetched through a mailbox provider's image proxy on the reader's behalf. */
  proxy: boolean;
  /** The rule that decided, a stable id such as 'apple-mpp', or null for a plain human open. */
  rule: string | null;
}

export interface ClickRequest {
  method: string;
  userAgent: string | undefined;
  /** Milliseconds from the recipient's delivery (the relay's acceptance) to this click; null if not delivered yet/unknown. */
  sinceDeliveryMs: number | null;
  /** This link's number and how many tracked links the message has. */
  link: number;
  linkCount: number;
  /** Earlier clicks on this message for this recipient: time (ms epoch) and link number; and this click's time. */
  earlier: ReadonlyArray<{ at: number; link: number }>;
  at: number;
}

export interface ClickVerdict {
  machine: boolean;
  rule: string | null;
}

interface Rule<Request> {
  /** Stable: stored with each open and click it decides. */
  readonly id: string;
  readonly description: string;
  matches(request: Request): boolean;
}

/** A rule for opens, first match deciding; what it decides. */
export interface OpenRule extends Rule<OpenRequest> {
  readonly machine: boolean;
  readonly proxy: boolean;
}

/** A rule for clicks, first match deciding: a click it matches is a machine's. */
export type ClickRule = Rule<ClickRequest>;

type Fetch = { method: string; userAgent: string | undefined };

/**
 * Substrings (compared in lower case) of the user agents of link scanners
 * and of HTTP libraries no person browses with. Many scanners send a
 * browser's user agent instead: the timing rules are what catch those.
 */
export const SCANNER_USER_AGENTS: ReadonlyArray<{ match: string; who: string }> = [
  { match: 'microsoftpreview', who: "Microsoft's page-preview crawler" },
  { match: 'bingpreview', who: "Microsoft's page-preview crawler, by its former name" },
  { match: 'proofpoint', who: 'Proofpoint' },
  { match: 'mimecast', who: 'Mimecast' },
  { match: 'barracuda', who: 'Barracuda' },
  { match: 'ironport', who: 'Cisco IronPort' },
  { match: 'trend micro', who: 'Trend Micro' },
  { match: 'trendmicro', who: 'Trend Micro' },
  { match: 'symantec', who: 'Symantec (Broadcom)' },
  { match: 'broadcom', who: 'Broadcom' },
  { match: 'fireeye', who: 'FireEye (Trellix)' },
  { match: 'trellix', who: 'Trellix' },
  { match: 'sophos', who: 'Sophos' },
  { match: 'forcepoint', who: 'Forcepoint' },
  { match: 'google-safety', who: 'Google Safe Browsing' },
  { match: 'headlesschrome', who: 'headless Chrome, which sandboxes open links in' },
  { match: 'python-requests', who: 'Python requests' },
  { match: 'python-urllib', who: 'Python urllib' },
  { match: 'aiohttp', who: 'Python aiohttp' },
  { match: 'curl/', who: 'curl' },
  { match: 'wget/', who: 'Wget' },
  { match: 'go-http-client', who: 'Go net/http' },
  { match: 'java/', who: 'Java HttpURLConnection' },
  { match: 'libwww-perl', who: 'Perl LWP' },
];

/** Apple's Mail Privacy Protection proxy sends this and nothing more: no client or system of the reader's. */
const APPLE_MPP_USER_AGENT = 'Mozilla/5.0';
const SOON_AFTER_DELIVERY_MS = 5_000;
const ALL_LINKS_WINDOW_MS = 1_000;

const userAgentOf = (request: Fetch) => request.userAgent?.trim() ?? '';

const headRequest: Rule<Fetch> = {
  id: 'head-request',
  description: 'A HEAD request: a mail client showing an image, and a browser following a link, send GET; a checker asking whether the address answers sends HEAD.',
  matches: (request) => request.method.toUpperCase() === 'HEAD',
};

const noUserAgent: Rule<Fetch> = {
  id: 'no-user-agent',
  description: 'No User-Agent header, or a blank one: every mail client, browser and image proxy sends one; scripts and some scanners do not.',
  matches: (request) => userAgentOf(request) === '',
};

const scannerUserAgent: Rule<Fetch> = {
  id: 'scanner-user-agent',
  description: "A user agent naming a link scanner or an HTTP library (SCANNER_USER_AGENTS), in any case.",
  matches: (request) => {
    const userAgent = userAgentOf(request).toLowerCase();
    return SCANNER_USER_AGENTS.some(({ match }) => userAgent.includes(match));
  },
};

export const OPEN_RULES: ReadonlyArray<OpenRule> = [
  { ...headRequest, machine: true, proxy: false },
  { ...noUserAgent, machine: true, proxy: false },
  {
    id: 'apple-mpp',
    description: "The user agent is exactly `Mozilla/5.0`: Apple Mail Privacy Protection's proxy, which fetches a message's images when it reaches the device, read or not.",
    machine: true,
    proxy: true,
    matches: (request) => userAgentOf(request) === APPLE_MPP_USER_AGENT,
  },
  { ...scannerUserAgent, machine: true, proxy: false },
  {
    id: 'google-image-proxy',
    description: "The user agent holds `GoogleImageProxy`: Gmail's image proxy, which fetches images when the reader views the message.",
    machine: false,
    proxy: true,
    matches: (request) => userAgentOf(request).toLowerCase().includes('googleimageproxy'),
  },
];

export const CLICK_RULES: ReadonlyArray<ClickRule> = [
  headRequest,
  noUserAgent,
  scannerUserAgent,
  {
    id: 'soon-after-delivery',
    description: 'Less than 5 s after the relay accepted the message: faster than a person opens and reads it, as fast as a gateway scans it.',
    matches: (request) => request.sinceDeliveryMs !== null && request.sinceDeliveryMs < SOON_AFTER_DELIVERY_MS,
  },
  {
    id: 'every-link-at-once',
    description: 'With this click, every link of a message with two or more has been clicked within less than 1 s: a scanner following them all.',
    matches: everyLinkAtOnce,
  },
];

export function classifyOpen(request: OpenRequest): OpenVerdict {
  const rule = OPEN_RULES.find((candidate) => candidate.matches(request));
  return rule ? { machine: rule.machine, proxy: rule.proxy, rule: rule.id } : { machine: false, proxy: false, rule: null };
}

export function classifyClick(request: ClickRequest): ClickVerdict {
  const rule = CLICK_RULES.find((candidate) => candidate.matches(request));
  return rule ? { machine: true, rule: rule.id } : { machine: false, rule: null };
}

/** Whether some span of less than a second, holding this click, holds a click on every link number. */
function everyLinkAtOnce(request: ClickRequest): boolean {
  const { linkCount, at } = request;
  const isLink = (link: number) => Number.isInteger(link) && link >= 1 && link <= linkCount;
  if (linkCount < 2 || !isLink(request.link)) return false;
  // Only clicks less than a second from this one: then a span holding every link, to either side of
  // this click, still spans less than a second with this click added.
  const clicks = [...request.earlier, { at, link: request.link }]
    .filter((click) => isLink(click.link) && Math.abs(click.at - at) < ALL_LINKS_WINDOW_MS)
    .sort((a, b) => a.at - b.at);
  // A window sliding over the clicks by time, counting each link's clicks inside it.
  const inWindow = new Map<number, number>();
  let first = 0;
  for (const click of clicks) {
    inWindow.set(click.link, (inWindow.get(click.link) ?? 0) + 1);
    while (click.at - clicks[first]!.at >= ALL_LINKS_WINDOW_MS) {
      const gone = clicks[first++]!.link;
      const left = inWindow.get(gone)! - 1;
      if (left === 0) inWindow.delete(gone);
      else inWindow.set(gone, left);
    }
    if (inWindow.size === linkCount) return true;
  }
  return false;
}
