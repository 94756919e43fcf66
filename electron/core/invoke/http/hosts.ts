/**
 * The allowed hosts: parsing the entries of Settings → Allowed hosts and matching a URL
 * against them.
 *
 * - An entry is a host name, an IP address (IPv6 in brackets), or `*.suffix`; each with an
 *   optional `:port`.
 * - Port: an entry without a port allows the scheme's default port only (80 for http, 443
 *   for https); an entry with a port allows that port only, on either scheme.
 * - `*.example.com` matches `a.example.com` and `a.b.example.com` (on a label boundary),
 *   never `example.com` itself nor `badexample.com`. A wildcard over an IP address is refused
 *   (so is a suffix whose last label is numeric: URL reads such a host as an invalid IPv4).
 * - Hosts are normalised the way WHATWG URL does (lowercase, IDN to punycode, IPv4 in any
 *   spelling to a dotted quad, IPv6 compressed), then one trailing dot is dropped, on both
 *   the entry and the URL: `Example.COM.` and `example.com` are the same host.
 * - `private:` before an entry (`private:nas.lan`, `private:*.corp.example:8443`) marks it as a
 *   private-network host: only such an entry, an IP address listed as such, or `localhost`
 *   (loopback answers only) lets a host reach a private, loopback or link-local address (see
 *   lookup.ts). A name listed without the mark must resolve to public addresses.
 */
import { AppError } from '../../../../shared/errors';
import { ipLiteralOfHostname } from '../../../../shared/ip-address';

export interface HostRule {
  /** The entry as written in Settings. */
  entry: string;
  /** The normalised host (for a wildcard, the suffix after `*.`); IPv6 keeps its brackets. */
  host: string;
  wildcard: boolean;
  /** Undefined: the scheme's default port only. */
  port?: number;
  /** The entry names an IP address. */
  ip: boolean;
  /** Marked `private:`: the host may resolve to private, loopback or link-local addresses. */
  private: boolean;
}

/** The mark before an entry for a host on a private network (a NAS, an intranet, a local server). */
export const PRIVATE_PREFIX = 'private:';

export interface HostProblem {
  entry: string;
  message: string;
}

/** A host name's characters: letters and digits in any script, marks, `.`, `-`, `_`. */
const NAME_CHARS = /^[\p{L}\p{N}\p{M}._-]+$/u;

/** Parses one entry; throws AppError VALIDATION_FAILED with a message for people. */
export function parseAllowedHost(entry: string): HostRule {
  const problem = (why: string) => new AppError('VALIDATION_FAILED', `allowed host '${entry}' ${why}`, { field: 'allowedHosts', entry });
  let rest = entry.trim();
  if (!rest) throw problem('is empty');
  // `private:8080` is the host `private` on port 8080, not a mark.
  const marked = rest.toLowerCase().startsWith(PRIVATE_PREFIX) && !/^\d+$/.test(rest.slice(PRIVATE_PREFIX.length));
  if (marked) {
    rest = rest.slice(PRIVATE_PREFIX.length);
    if (!rest) throw problem(`has no host after '${PRIVATE_PREFIX}'`);
  }
  let wildcard = false;
  if (rest.startsWith('*.')) {
    wildcard = true;
    rest = rest.slice(2);
  }
  let hostPart: string;
  let portPart: string | undefined;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) throw problem("has a '[' without its ']'");
    hostPart = rest.slice(0, close + 1);
    const after = rest.slice(close + 1);
    if (after) {
      if (!after.startsWith(':')) throw problem("has something other than ':port' after ']'");
      portPart = after.slice(1);
    }
  } else {
    const colon = rest.lastIndexOf(':');
    hostPart = colon >= 0 ? rest.slice(0, colon) : rest;
    portPart = colon >= 0 ? rest.slice(colon + 1) : undefined;
  }
  let port: number | undefined;
  if (portPart !== undefined) {
    if (!/^\d{1,5}$/.test(portPart) || Number(portPart) < 1 || Number(portPart) > 65535) throw problem('has a port that is not a number from 1 to 65535');
    port = Number(portPart);
  }
  if (!hostPart) throw problem('has no host');
  if (hostPart.includes('*')) throw problem("may use '*' only as a leading '*.'");
  if (!hostPart.startsWith('[') && !NAME_CHARS.test(hostPart)) throw problem('is not a host name: use letters, digits, dots and hyphens');
  let hostname: string;
  try {
    hostname = new URL(`http://${hostPart}/`).hostname;
  } catch {
    throw problem('is not a valid host name or IP address');
  }
  const host = stripTrailingDot(hostname);
  if (!host || host.startsWith('.') || host.endsWith('.') || host.includes('..')) throw problem('has an empty label');
  const ip = ipLiteralOfHostname(host) !== undefined;
  if (wildcard && ip) throw problem("is a wildcard over an IP address; list the address itself without '*.'");
  return { entry, host, wildcard, ...(port !== undefined ? { port } : {}), ip, private: marked };
}

/** Parses every entry; bad entries are reported, not thrown, and allow nothing. */
export function parseAllowedHosts(entries: readonly string[]): { rules: HostRule[]; problems: HostProblem[] } {
  const rules: HostRule[] = [];
  const problems: HostProblem[] = [];
  for (const entry of entries) {
    try {
      rules.push(parseAllowedHost(entry));
    } catch (e) {
      problems.push({ entry, message: (e as Error).message });
    }
  }
  return { rules, problems };
}

/** A URL's hostname as rules compare it: WHATWG-normalised already; one trailing dot dropped. */
export function normaliseHostname(hostname: string): string {
  return stripTrailingDot(hostname.toLowerCase());
}

export function defaultPort(protocol: string): number | undefined {
  return protocol === 'http:' ? 80 : protocol === 'https:' ? 443 : undefined;
}

/** The port a URL connects to (its explicit port, or its scheme's default). */
export function effectivePort(url: URL): number {
  return url.port ? Number(url.port) : (defaultPort(url.protocol) ?? 0);
}

/** `host` for the default port, `host:port` otherwise: what a person would add to the allowed hosts. */
export function hostLabel(url: URL): string {
  const host = normaliseHostname(url.hostname);
  return url.port ? `${host}:${url.port}` : host;
}

function portAllowed(rule: HostRule, port: number, protocol: string): boolean {
  return rule.port !== undefined ? rule.port === port : defaultPort(protocol) === port;
}

/**
 * The rule that allows `hostname:port` over `protocol`, exact entries first; undefined when
 * none does. `hostname` is a URL hostname (normalised here).
 */
export function matchHost(rules: readonly HostRule[], hostname: string, port: number, protocol: string): HostRule | undefined {
  const host = normaliseHostname(hostname);
  let wild: HostRule | undefined;
  for (const r of rules) {
    if (!ruleMatches(r, host, port, protocol)) continue;
    if (!r.wildcard) return r;
    wild ??= r;
  }
  return wild;
}

function ruleMatches(r: HostRule, host: string, port: number, protocol: string): boolean {
  if (!portAllowed(r, port, protocol)) return false;
  if (!r.wildcard) return r.host === host;
  return host.length > r.host.length + 1 && host.endsWith('.' + r.host) && !host.startsWith('[');
}

/** True when a non-wildcard entry names this very host (and allows this port). */
export function isExactlyAllowed(rules: readonly HostRule[], hostname: string, port: number, protocol: string): boolean {
  return matchHost(rules, hostname, port, protocol)?.wildcard === false;
}

/** True when an entry marked `private:` allows this host and port. */
export function isPrivateAllowed(rules: readonly HostRule[], hostname: string, port: number, protocol: string): boolean {
  const host = normaliseHostname(hostname);
  return rules.some((r) => r.private && ruleMatches(r, host, port, protocol));
}

/**
 * Throws FORBIDDEN unless the URL is http(s), carries no user info, and its host and port
 * are allowed. Returns the matching rule.
 */
export function assertUrlAllowed(url: URL, rules: readonly HostRule[]): HostRule {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('FORBIDDEN', `the scheme '${url.protocol.replace(/:$/, '')}' is refused: tools may use only http and https`, { scheme: url.protocol });
  }
  if (url.username || url.password) {
    throw new AppError(
      'FORBIDDEN',
      `the URL for '${hostLabel(url)}' carries user info ('name@' or 'name:password@' before the host), which is refused: put credentials in the tool's auth settings`,
      { host: normaliseHostname(url.hostname) },
    );
  }
  const rule = matchHost(rules, url.hostname, effectivePort(url), url.protocol);
  if (!rule) {
    const label = hostLabel(url);
    throw new AppError('FORBIDDEN', `host '${label}' is not in the allowed hosts; add it in Settings → Allowed hosts`, { host: normaliseHostname(url.hostname), port: effectivePort(url) });
  }
  return rule;
}

function stripTrailingDot(h: string): string {
  return h.endsWith('.') ? h.slice(0, -1) : h;
}
