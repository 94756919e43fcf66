/**
 * The secrets a request carries, kept to their hosts on every hop.
 *
 * Building a request records each secret it resolves (a `${secret:NAME}` placeholder, an
 * auth helper) with the headers made from it (`CarriedSecrets`). The transport then checks
 * each hop, the first and every redirect, against the secrets' bindings (`guardHop`): for a
 * host a secret is not bound to,
 * - every header that holds its value (as is, URL-, form-, JSON-, base64- or hex-encoded)
 *   or was made from it (Basic auth, a signature, a templated header) is dropped, for the rest
 *   of the exchange, whatever the header's name;
 * - a URL that holds it (a Location that copied a query key) is refused;
 * - a body that holds it is refused (a 307/308 re-sends the body; a 303, or a 301/302 after
 *   POST, drops it and passes).
 * Values shorter than 4 characters are found through their headers only (see redact.ts).
 */
import { AppError } from '../../../../shared/errors';
import { encodingsOf, REDACT_MIN_LENGTH } from '../../secrets/redact';
import type { CarriedSecret, SecretResolver } from '../types';
import { hostLabel, normaliseHostname } from './hosts';

/** Collects the secrets one call puts into its requests, by name. */
export class CarriedSecrets {
  private readonly values = new Map<string, { value: string; resolver: SecretResolver }>();
  private readonly headers = new Map<string, Set<string>>();

  /** A secret resolved into the request. */
  add(name: string, value: string, resolver: SecretResolver): void {
    this.values.set(name, { value, resolver });
  }

  /** A header made from the secret `name`, which may not show its value as such. */
  header(name: string, header: string): void {
    let set = this.headers.get(name);
    if (!set) this.headers.set(name, (set = new Set()));
    set.add(header.toLowerCase());
  }

  list(): CarriedSecret[] {
    return [...this.values].map(([name, { value, resolver }]) => ({
      name,
      value,
      headers: [...(this.headers.get(name) ?? [])],
      boundTo: (host: string) => {
        try {
          return resolver.resolve(name, host) === value;
        } catch {
          return false;
        }
      },
    }));
  }
}

/** The `${secret:NAME}` placeholders in a template string (`$${` escapes are skipped). */
export function secretNamesIn(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(/(\$?)\$\{secret:([^}]*)\}/g)) if (!m[1]) names.push(m[2]!.trim());
  return names;
}

/** The forms in which a request may carry a value; none for values too short to look for. */
export function carriedForms(value: string): string[] {
  return [...value].length < REDACT_MIN_LENGTH ? [] : encodingsOf(value);
}

export interface Hop {
  url: URL;
  /** Mutated: headers that would carry a secret to this host are deleted. */
  headers: Record<string, string>;
  /** The body this hop would send. */
  body?: Uint8Array | undefined;
  /** The redirect that led here. */
  from?: { url: URL; status: number };
}

/** Applies the secrets' bindings to one hop: drops the headers, refuses a URL or body, that would carry one to a host it is not bound to. */
export function guardHop(secrets: readonly CarriedSecret[] | undefined, hop: Hop): void {
  if (!secrets?.length) return;
  const host = normaliseHostname(hop.url.hostname);
  const unbound = secrets.filter((s) => !s.boundTo(host));
  if (unbound.length === 0) return;
  let bodyText: string | undefined;
  for (const s of unbound) {
    const forms = carriedForms(s.value);
    const holds = (text: string) => forms.some((f) => text.includes(f));
    for (const [name, value] of Object.entries(hop.headers)) if (s.headers.includes(name.toLowerCase()) || holds(value)) delete hop.headers[name];
    if (holds(hop.url.href)) throw carried(s.name, host, hop, 'url');
    if (hop.body && forms.length > 0) {
      bodyText ??= Buffer.from(hop.body.buffer, hop.body.byteOffset, hop.body.byteLength).toString('utf8');
      if (holds(bodyText)) throw carried(s.name, host, hop, 'body');
    }
  }
}

function carried(name: string, host: string, hop: Hop, part: 'url' | 'body'): AppError {
  const where = hostLabel(hop.url);
  const what = part === 'url' ? 'its URL holds' : 'the request body, re-sent there, holds';
  const fix = `bind the secret to '${host}' if it should go there`;
  const message = hop.from
    ? `'${hostLabel(hop.from.url)}' answered ${hop.from.status}, redirecting to '${where}', but ${what} the secret '${name}', which is not bound to '${host}': the redirect is refused (${fix})`
    : `the request to '${where}' is refused: ${part === 'url' ? 'its URL' : 'its body'} holds the secret '${name}', which is not bound to '${host}' (${fix})`;
  return new AppError('FORBIDDEN', message, { secret: name, host, part, ...(hop.from ? { status: hop.from.status } : {}) });
}
