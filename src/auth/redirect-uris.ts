/*
 * Redirect URIs of authorization-code clients (agent hosts): https, or http on the loopback
 * interface (RFC 8252 §7.3, native apps listening on a port of their own). No fragment
 * (RFC 6749 §3.1.2). At the authorization request the URI must be one registered, exactly,
 * except that a loopback URI's port may differ (RFC 8252 §7.3: the port is chosen at run time).
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const MAX_URI_LENGTH = 2000;

/** Why a redirect URI cannot be registered, or undefined when it can. */
export function redirectUriProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0) return 'each redirect URI must be a non-empty string';
  if (value.length > MAX_URI_LENGTH) return `a redirect URI must be at most ${MAX_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value.slice(0, 100)}" is not an absolute URI`;
  }
  if (value.includes('#')) return 'a redirect URI must not contain a fragment (RFC 6749 §3.1.2)';
  if (url.username || url.password) return 'a redirect URI must not contain user information';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return 'a redirect URI must be https, or http on the loopback interface (127.0.0.1, [::1] or localhost; RFC 8252 §7.3)';
}

function isLoopback(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * The registered redirect URI `asked` matches, or undefined: byte for byte, or, for a loopback
 * URI, the same in everything but the port.
 */
export function matchRedirectUri(registered: readonly string[], asked: string): string | undefined {
  if (registered.includes(asked)) return asked;
  let url: URL;
  try {
    url = new URL(asked);
  } catch {
    return undefined;
  }
  if (!isLoopback(url) || asked.includes('#')) return undefined;
  for (const candidate of registered) {
    const reg = new URL(candidate);
    if (!isLoopback(reg)) continue;
    reg.port = url.port;
    if (reg.href === url.href) return asked;
  }
  return undefined;
}
