/**
 * Which of the hosts an importer proposes it adds to Settings → Allowed hosts by itself. One
 * rule for the OpenAPI import, on the command line (`toolsmith import openapi`) and in the app.
 *
 * A document comes from elsewhere, and its servers may name addresses on this computer or its
 * network: a cloud's metadata service (169.254.169.254), a database (127.0.0.1:6379), a
 * machine of the office network (10.0.0.5:8080). An IP address in the allowed hosts is one
 * the tools can reach, so such a host is never added on the document's word: it is named,
 * with what it is, and left for the person (`--allow-private`, or the box in the app).
 *
 * Private here: `localhost` and names under `.localhost`, and an IP address in any spelling
 * URL reads (`2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]`) that is not plainly public
 * unicast: loopback, private, link-local, carrier-grade NAT, unspecified, multicast,
 * broadcast, unique-local (fc00::/7) and every reserved or special-purpose range, including
 * IPv6 forms that carry an IPv4 address. Other names are public here: at request time a name
 * must resolve to public addresses unless its entry is marked `private:` (the app's address
 * rule), so adding one opens no way in.
 *
 * Pure (ipaddr.js and WHATWG URL): the core, the command line and the renderer run the same code.
 */
import ipaddr from 'ipaddr.js';

/** A host left out, and what it is, for a person. */
export interface PrivateHost {
  host: string;
  /** "a loopback address", "a link-local address", ... */
  why: string;
}

export interface ProposedHosts {
  /** Added to Settings → Allowed hosts by the importer. */
  public: string[];
  /** Named and left for the person, unless they ask for them too. */
  private: PrivateHost[];
}

const V4_WHY: Record<string, string> = {
  loopback: 'a loopback address (this computer)',
  private: 'a private-network address',
  linkLocal: 'a link-local address (where cloud metadata services answer)',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
  unspecified: 'an unspecified address (this computer)',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
};

const V6_WHY: Record<string, string> = {
  loopback: 'a loopback address (this computer)',
  uniqueLocal: 'a private-network address (unique local)',
  deprecatedSiteLocal: 'a private-network address (site local)',
  linkLocal: 'a link-local address',
  unspecified: 'an unspecified address (this computer)',
  multicast: 'a multicast address',
};

const RESERVED = 'a reserved or special-purpose address';

function whyV4(a: ipaddr.IPv4): string | undefined {
  const range = a.range();
  return range === 'unicast' ? undefined : (V4_WHY[range] ?? RESERVED);
}

function whyV6(a: ipaddr.IPv6): string | undefined {
  if (a.isIPv4MappedAddress()) return whyV4(a.toIPv4Address());
  const range = a.range();
  // Global unicast is 2000::/3; an address that carries or translates an IPv4 one (6to4, NAT64, Teredo) is not plainly public.
  if (range === 'unicast' && (a.parts[0]! & 0xe000) === 0x2000) return undefined;
  return V6_WHY[range] ?? RESERVED;
}

/**
 * Why `entry` (a host, `host:port` or `[IPv6]:port`, as the importers propose them) is not
 * added by itself, or undefined when it is a public host. An entry URL cannot read is not
 * judged here (Settings refuses it with its own words).
 */
export function privateHostReason(entry: string): string | undefined {
  let hostname: string;
  try {
    hostname = new URL(`http://${entry.trim()}/`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  if (hostname.endsWith('.')) hostname = hostname.slice(0, -1);
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return 'a name for this computer (localhost)';
  if (hostname.startsWith('[') && hostname.endsWith(']')) {
    const inner = hostname.slice(1, -1);
    return ipaddr.IPv6.isValid(inner) ? whyV6(ipaddr.IPv6.parse(inner)) : RESERVED;
  }
  // URL gives an IPv4 address, in whatever spelling it was written, as a dotted quad.
  if (ipaddr.IPv4.isValidFourPartDecimal(hostname)) return whyV4(ipaddr.IPv4.parse(hostname));
  return undefined;
}

/** The proposed hosts split by the rule, each once (compared without case), in order. */
export function splitProposedHosts(hosts: readonly string[]): ProposedHosts {
  const out: ProposedHosts = { public: [], private: [] };
  const seen = new Set<string>();
  for (const host of hosts) {
    const key = host.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    const why = privateHostReason(host);
    if (why === undefined) out.public.push(host);
    else out.private.push({ host, why });
  }
  return out;
}
