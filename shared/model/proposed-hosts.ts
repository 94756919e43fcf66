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
 * Addresses are classified by ../ip-address.ts, as the app's address rule classifies them: the
 * core, the command line and the renderer run the same code.
 */
import { classifyAddress, ipLiteralOfHostname, type AddressKind } from '../ip-address';

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

const WHY: Record<Exclude<AddressKind, 'public'>, string> = {
  loopback: 'a loopback address (this computer)',
  private: 'a private-network address',
  'link-local': 'a link-local address (where cloud metadata services answer)',
  cgnat: 'a shared (carrier-grade NAT) address',
  unspecified: 'an unspecified address (this computer)',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  reserved: 'a reserved or special-purpose address',
};

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
  if (hostname.startsWith('[') && hostname.endsWith(']') && !ipLiteralOfHostname(hostname)) return WHY.reserved;
  const literal = ipLiteralOfHostname(hostname);
  if (!literal) return undefined;
  const c = classifyAddress(literal.address)!;
  if (c.kind !== 'public') return WHY[c.kind];
  // An IPv6 form that carries or translates an IPv4 address (6to4, NAT64) is not plainly public,
  // even where the address it carries is: only a mapped one (::ffff:a.b.c.d) is that address.
  return c.embeddedIpv4 !== undefined && c.range !== 'ipv4Mapped' ? WHY.reserved : undefined;
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
