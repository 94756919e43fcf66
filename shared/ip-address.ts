/**
 * IP addresses: reading a host as an IP literal the way WHATWG URL does (so `2130706433`,
 * `0x7f.1`, `127.1`, `0177.0.0.1` and `[::ffff:127.0.0.1]` are all seen for what they are),
 * and classifying an address as public or not (loopback, private, link-local, CGNAT, ...).
 *
 * Only `public` addresses may be reached through a host matched by a wildcard or through a
 * DNS answer; everything else needs the exact host in the allowed hosts (electron/core/invoke/http/lookup.ts).
 * The importers judge the hosts a document proposes with it too (model/proposed-hosts.ts). Pure:
 * ipaddr.js and WHATWG URL, so the core and the renderer run the same code.
 */
import ipaddr from 'ipaddr.js';

/** What an address is, from the point of view of "may a tool reach it". */
export type AddressKind =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved';

export interface AddressClass {
  /** Canonical text: a dotted quad, or compressed IPv6 without brackets (zone id dropped). */
  address: string;
  family: 4 | 6;
  kind: AddressKind;
  /** The ipaddr.js range name, e.g. `carrierGradeNat`, `uniqueLocal`, `ipv4Mapped`, `unicast`. */
  range: string;
  /** For IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4): that address, which decided the kind. */
  embeddedIpv4?: string;
}

export interface IpLiteral {
  /** Canonical text: a dotted quad, or compressed IPv6 without brackets. */
  address: string;
  family: 4 | 6;
}

const V4_KINDS: Record<string, AddressKind> = {
  unicast: 'public',
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  carrierGradeNat: 'cgnat',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
};

const V6_KINDS: Record<string, AddressKind> = {
  loopback: 'loopback',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
  linkLocal: 'link-local',
  unspecified: 'unspecified',
  multicast: 'multicast',
};

/**
 * Classifies an address given as text: a dotted quad, an IPv6 address with or without
 * brackets (a `%zone` is ignored), or any other spelling WHATWG URL reads as an IP
 * (`2130706433`, `0x7f.1`, ...). Returns undefined when the text is not an IP address.
 *
 * IPv4: only ipaddr.js's `unicast` is public; 0/8, 10/8, 100.64/10, 127/8, 169.254/16,
 * 172.16/12, 192.168/16, 224/4, 240/4, 255.255.255.255 and the documentation, benchmarking
 * and AS112/AMT ranges are not.
 * IPv6: public only inside 2000::/3 and outside every special range; fc00::/7 and the old
 * fec0::/10 are private, fe80::/10 link-local; IPv4-mapped (::ffff:a.b.c.d), SIIT
 * (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) take the kind of the IPv4
 * address they carry; Teredo, ORCHID, discard, documentation and the rest of ::/8 are reserved.
 */
export function classifyAddress(text: string): AddressClass | undefined {
  const literal = parseAddress(text);
  if (!literal) return undefined;
  if (literal.family === 4) return classifyV4(ipaddr.IPv4.parse(literal.address));
  return classifyV6(ipaddr.IPv6.parse(literal.address));
}

/** True only for an address that classifies as `public`; false for anything else, names included. */
export function isPublicAddress(text: string): boolean {
  return classifyAddress(text)?.kind === 'public';
}

/** "a loopback address", "a private address", ... for messages. */
export function describeKind(kind: AddressKind): string {
  switch (kind) {
    case 'public':
      return 'a public address';
    case 'loopback':
      return 'a loopback address';
    case 'private':
      return 'a private address';
    case 'link-local':
      return 'a link-local address';
    case 'cgnat':
      return 'a shared (carrier-grade NAT) address';
    case 'unspecified':
      return 'an unspecified address';
    case 'multicast':
      return 'a multicast address';
    case 'broadcast':
      return 'a broadcast address';
    case 'reserved':
      return 'a reserved address';
  }
}

/**
 * The IP address a URL's `hostname` stands for, or undefined for a domain name. The hostname
 * must already be WHATWG-normalised (what `new URL(...).hostname` gives): IPv4 as a dotted
 * quad, IPv6 in brackets. A trailing dot is tolerated.
 */
export function ipLiteralOfHostname(hostname: string): IpLiteral | undefined {
  const h = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (h.startsWith('[') && h.endsWith(']')) {
    const inner = h.slice(1, -1);
    return ipaddr.IPv6.isValid(inner) ? { address: ipaddr.IPv6.parse(inner).toString(), family: 6 } : undefined;
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(h)) return { address: ipaddr.IPv4.parse(h).toString(), family: 4 };
  return undefined;
}

/**
 * Reads a host as it could be written in a URL (`2130706433`, `0x7f.1`, `127.1`, `0177.0.0.1`,
 * `[::ffff:127.0.0.1]`, `１２７.0.0.1`, `%31%32%37.0.0.1`) with WHATWG URL's own parser and
 * returns the IP it denotes, or undefined for a domain name or a host URL refuses.
 */
export function parseIpLiteral(host: string): IpLiteral | undefined {
  if (/[/?#@\\\s]/.test(host)) return undefined;
  let hostname: string;
  try {
    hostname = new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
  return ipLiteralOfHostname(hostname);
}

/** An address as DNS or a socket gives it (plain text), or any URL spelling of one. */
function parseAddress(text: string): IpLiteral | undefined {
  let t = text.trim();
  if (t.startsWith('[') && t.endsWith(']')) t = t.slice(1, -1);
  const zone = t.indexOf('%');
  if (zone > 0 && t.includes(':')) t = t.slice(0, zone);
  if (ipaddr.IPv4.isValidFourPartDecimal(t)) return { address: ipaddr.IPv4.parse(t).toString(), family: 4 };
  if (t.includes(':')) return ipaddr.IPv6.isValid(t) ? { address: ipaddr.IPv6.parse(t).toString(), family: 6 } : undefined;
  return parseIpLiteral(t);
}

function classifyV4(a: ipaddr.IPv4): AddressClass {
  const range = a.range();
  return { address: a.toString(), family: 4, kind: V4_KINDS[range] ?? 'reserved', range };
}

function classifyV6(a: ipaddr.IPv6): AddressClass {
  const range = a.range();
  const address = a.toString();
  const p = a.parts;
  const embedded = embeddedV4(range, p);
  if (embedded) {
    const inner = classifyV4(embedded);
    return { address, family: 6, kind: inner.kind, range, embeddedIpv4: inner.address };
  }
  const known = V6_KINDS[range];
  if (known) return { address, family: 6, kind: known, range };
  // Global unicast is 2000::/3; anything else not named above is reserved or unassigned.
  const globalUnicast = (p[0]! & 0xe000) === 0x2000;
  return { address, family: 6, kind: range === 'unicast' && globalUnicast ? 'public' : 'reserved', range };
}

/** The IPv4 address carried by an IPv6 address whose reachability it decides. */
function embeddedV4(range: string, p: number[]): ipaddr.IPv4 | undefined {
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  if (range === 'ipv4Mapped' || range === 'rfc6145') return v4(p[6]!, p[7]!);
  // NAT64 well-known prefix 64:ff9b::/96 (the local-use 64:ff9b:1::/48 is left reserved).
  if (range === 'rfc6052' && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) return v4(p[6]!, p[7]!);
  if (range === '6to4') return v4(p[1]!, p[2]!);
  return undefined;
}
