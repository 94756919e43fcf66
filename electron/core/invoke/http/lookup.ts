/**
 * DNS with the address rule: a name may resolve to a non-public address (loopback, private,
 * link-local, CGNAT, unspecified, multicast, reserved; see shared/ip-address.ts) only when an entry marked
 * `private:` allows it (`private:nas.lan`, `private:*.corp.example`). `localhost` listed
 * exactly may resolve to loopback addresses only. Any other name, listed exactly or through a
 * wildcard, must resolve to public addresses only, and every answer counts: one non-public
 * address refuses the lot. An IP address (a URL's literal host) is allowed when it is listed.
 *
 * `createGuardedLookup` is given to the socket (`net.connect({ lookup })`), so the check is
 * made on the very answer the socket connects to: a DNS answer that turns private between a
 * first check and the connection (rebinding) is refused before any connection is opened.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { AppError } from '../../../../shared/errors';
import { isExactlyAllowed, isPrivateAllowed, normaliseHostname, PRIVATE_PREFIX, type HostRule } from './hosts';
import { classifyAddress, describeKind, ipLiteralOfHostname, type AddressClass } from '../../../../shared/ip-address';

export type { LookupFunction };

/** The resolver used when none is injected. */
export const systemLookup: LookupFunction = dns.lookup as LookupFunction;

export interface LookupAnswer {
  address: string;
  family: number;
}

/** Where a connection goes: the URL's hostname, the port and the scheme (for the default-port rule). */
export interface Destination {
  hostname: string;
  port: number;
  protocol: string;
}

/** FORBIDDEN: `host` resolved to (or is) a non-public address it may not reach. */
export function nonPublicError(dest: Destination, cls: AddressClass, literal: boolean): AppError {
  const host = normaliseHostname(dest.hostname);
  const entry = dest.port === defaultPortOf(dest.protocol) ? host : `${host}:${dest.port}`;
  const what = describeKind(cls.kind);
  const shown = cls.embeddedIpv4 ? `${cls.address}, which is ${cls.embeddedIpv4}` : cls.address;
  const message = literal
    ? `'${host}' is ${what} (${shown}), refused unless '${entry}' is allowed exactly; add '${entry}' in Settings → Allowed hosts if you trust it`
    : `'${host}' resolves to ${what} (${shown}), refused unless '${host}' is marked as a private-network host; add '${PRIVATE_PREFIX}${entry}' in Settings → Allowed hosts if you trust it`;
  return new AppError('FORBIDDEN', message, { host, port: dest.port, address: cls.address, kind: cls.kind });
}

/**
 * Throws FORBIDDEN when any answer is not a public address, unless an entry marked
 * `private:` allows this host and port; `localhost` allowed exactly may resolve to loopback
 * addresses (only). An answer that is not an IP at all is refused too.
 */
export function assertAnswersAllowed(dest: Destination, answers: readonly LookupAnswer[], rules: readonly HostRule[]): void {
  if (isPrivateAllowed(rules, dest.hostname, dest.port, dest.protocol)) return;
  const loopbackOnly = normaliseHostname(dest.hostname) === 'localhost' && isExactlyAllowed(rules, dest.hostname, dest.port, dest.protocol);
  for (const a of answers) {
    const cls = classifyAddress(a.address) ?? { address: String(a.address), family: 4, kind: 'reserved', range: 'invalid' };
    if (cls.kind === 'public' || (loopbackOnly && cls.kind === 'loopback')) continue;
    throw nonPublicError(dest, cls, false);
  }
}

/**
 * For a hostname that is an IP literal (sockets do not look those up): throws FORBIDDEN when
 * the address is not public and not allowed exactly. Returns true when it was an IP literal.
 */
export function assertLiteralAllowed(dest: Destination, rules: readonly HostRule[]): boolean {
  const lit = ipLiteralOfHostname(dest.hostname.startsWith('[') || !dest.hostname.includes(':') ? dest.hostname : `[${dest.hostname}]`);
  if (!lit) return false;
  if (isExactlyAllowed(rules, lit.family === 6 ? `[${lit.address}]` : lit.address, dest.port, dest.protocol)) return true;
  const cls = classifyAddress(lit.address)!;
  if (cls.kind !== 'public') throw nonPublicError(dest, cls, true);
  return true;
}

/** Every address `hostname` resolves to; UNAVAILABLE (with the cause) when it does not resolve. */
export function resolveAll(lookup: LookupFunction, hostname: string): Promise<LookupAnswer[]> {
  return new Promise((resolve, reject) => {
    try {
      lookup(hostname, { all: true, family: 0 }, (err, address, family) => {
        if (err) return reject(resolveError(hostname, err));
        const answers = toAnswers(address, family);
        if (answers.length === 0) return reject(new AppError('UNAVAILABLE', `'${hostname}' resolved to no address; check the host name`, { host: hostname }));
        resolve(answers);
      });
    } catch (e) {
      reject(resolveError(hostname, e as NodeJS.ErrnoException));
    }
  });
}

/**
 * The check before a request is sent (a clear error, no socket opened): resolves the host
 * and applies the address rule. The connection itself checks again (createGuardedLookup).
 */
export async function resolveAndCheck(dest: Destination, rules: readonly HostRule[], lookup: LookupFunction = systemLookup): Promise<LookupAnswer[]> {
  if (assertLiteralAllowed(dest, rules)) return [];
  const answers = await resolveAll(lookup, dest.hostname);
  assertAnswersAllowed(dest, answers, rules);
  return answers;
}

/**
 * A `lookup` for `net.connect`/`tls.connect` to `port` over `protocol`: resolves with the
 * injected resolver (all addresses), refuses the answer unless the address rule holds, and
 * answers in the shape the socket asked for (`all: true` or one address).
 */
export function createGuardedLookup(rules: readonly HostRule[], port: number, protocol: string, lookup: LookupFunction = systemLookup): LookupFunction {
  return (hostname, options, callback) => {
    const dest = { hostname, port, protocol };
    const wanted = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    resolveAll(lookup, hostname).then(
      (all) => {
        try {
          assertAnswersAllowed(dest, all, rules);
        } catch (e) {
          return callback(e as NodeJS.ErrnoException, options.all ? [] : '', 0);
        }
        const answers = wanted ? all.filter((a) => a.family === wanted) : all;
        if (answers.length === 0) {
          const err = Object.assign(new Error(`'${hostname}' has no IPv${wanted} address`), { code: 'ENOTFOUND' }) as NodeJS.ErrnoException;
          return callback(err, options.all ? [] : '', 0);
        }
        if (options.all) callback(null, answers);
        else callback(null, answers[0]!.address, answers[0]!.family);
      },
      (e: unknown) => callback(e as NodeJS.ErrnoException, options.all ? [] : '', 0),
    );
  };
}

function toAnswers(address: string | dns.LookupAddress[] | undefined, family: number | undefined): LookupAnswer[] {
  if (Array.isArray(address)) return address.map((a) => ({ address: a.address, family: a.family }));
  if (typeof address === 'string' && address) return [{ address, family: family ?? (address.includes(':') ? 6 : 4) }];
  return [];
}

function resolveError(hostname: string, err: NodeJS.ErrnoException): AppError {
  const code = err.code ?? 'EUNKNOWN';
  const notFound = code === 'ENOTFOUND' || code === 'EAI_NONAME' || code === 'EAI_FAIL' || code === 'ENODATA';
  const message = notFound
    ? `could not resolve '${hostname}' (${code}): check the host name`
    : `could not resolve '${hostname}' (${code}): check the network and the DNS settings, then try again`;
  return new AppError('UNAVAILABLE', message, { host: hostname, cause: code });
}

function defaultPortOf(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}
