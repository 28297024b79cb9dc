/**
 * Whether a URL SNS gives (SigningCertURL, SubscribeURL) may be fetched:
 * https only, on a host matching one of SES_SNS_TRUSTED_HOSTS. A pattern is
 * a host name in which `*` stands for exactly one DNS label
 * (`sns.*.amazonaws.com` takes `sns.eu-west-1.amazonaws.com`, not
 * `sns.evil.example.amazonaws.com` nor `sns.amazonaws.com`), optionally with
 * `:port`; without one, only 443. Returns why not, or null when it may.
 */
export function untrustedUrlReason(value: string, patterns: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'it is not a URL';
  }
  if (url.protocol !== 'https:') return `it is not https (${url.protocol.replace(/:$/, '')})`;
  if (url.username || url.password) return 'it carries credentials';
  const host = url.hostname.toLowerCase();
  const port = url.port === '' ? '443' : url.port;
  if (patterns.some((pattern) => hostMatches(pattern, host, port))) return null;
  return `its host ${url.host} is not one of SES_SNS_TRUSTED_HOSTS`;
}

function hostMatches(pattern: string, host: string, port: string): boolean {
  const [namePattern, portPattern] = splitPort(pattern.trim().toLowerCase());
  if ((portPattern ?? '443') !== port) return false;
  const want = namePattern.split('.');
  const got = host.split('.');
  if (want.length !== got.length) return false;
  return want.every((label, i) => (label === '*' ? got[i] !== '' : label === got[i]));
}

function splitPort(pattern: string): [string, string | undefined] {
  const match = /^(.*):(\d+)$/.exec(pattern);
  return match ? [match[1]!, match[2]] : [pattern, undefined];
}
