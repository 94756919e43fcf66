/**
 * The hosts a secret may be sent to. Written as in Settings' allowed hosts
 * (AllowedHostSchema): `api.example.com`, `*.example.com`, `[::1]`; but without a port — a
 * secret is bound to a host name, whatever the port. Stored lowercase, trailing dot removed.
 *
 * `*.example.com` matches a host that ends in `.example.com` on a label boundary with at
 * least one label in front (`api.example.com`, `a.b.example.com`), never `example.com`
 * itself, `badexample.com` nor `example.com.evil.com`. A wildcard needs at least two labels
 * after `*.`: `*.com` is refused.
 */
import { AllowedHostSchema } from '../../../shared/model/settings';
import { quote, type RuleViolation } from '../../../shared/model/validation';

export const SECRET_HOSTS_MAX = 100;

const LABEL = /^[a-z0-9-]{1,63}$/;

/** The stored form of one binding, or why it is refused. */
export function normaliseBinding(input: unknown, field = 'hosts'): { ok: true; host: string } | { ok: false; violation: RuleViolation } {
  const bad = (rule: string, message: string) => ({ ok: false as const, violation: { field, rule, message } });
  if (typeof input !== 'string') return bad('type', `a host must be a string: got ${input === null ? 'null' : typeof input}`);
  const raw = input.trim();
  if (/^private:/i.test(raw)) {
    return bad('private', `${quote(raw)}: a secret is bound to a host name; write ${quote(raw.slice(8))} (the private: mark belongs in Settings → Allowed hosts)`);
  }
  if (!AllowedHostSchema.safeParse(raw).success) {
    return bad('host', `${quote(raw)} is not a host: write a host name such as api.example.com or *.example.com`);
  }
  let host = raw.toLowerCase();
  if (host.startsWith('[')) {
    if (!/^\[[0-9a-f:.]+\]$/.test(host)) return bad('port', `${quote(raw)} has a port: a secret is bound to a host, whatever the port; remove ':${host.split(']:')[1] ?? ''}'`);
    return { ok: true, host };
  }
  const port = /:(\d{1,5})$/.exec(host);
  if (port) return bad('port', `${quote(raw)} has a port: a secret is bound to a host, whatever the port; remove ':${port[1]}'`);
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.length === 0 || host.length > 253) return bad('host', `${quote(raw)} is not a host name`);
  const wildcard = host.startsWith('*.');
  const labels = (wildcard ? host.slice(2) : host).split('.');
  if (labels.some((l) => !LABEL.test(l))) return bad('host', `${quote(raw)} is not a host name: it has an empty or too long label`);
  if (wildcard && labels.length < 2) return bad('wildcard', `${quote(raw)} is too broad: a wildcard needs at least two labels after '*.', as in *.example.com`);
  return { ok: true, host };
}

/**
 * The form of a request's host for matching: lowercase, trailing dot removed, an IPv6
 * address in brackets. A host with a port (`a.com:443`) is not a host and matches nothing.
 */
export function normaliseRequestHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (!h.startsWith('[') && /^[0-9a-f]*:[0-9a-f:.]*$/.test(h) && h.split(':').length > 2) h = `[${h}]`;
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/** A DNS name with no empty label (URL hosts may carry '_'). */
const REQUEST_NAME = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;

/** Whether a request to `host` (normalised by normaliseRequestHost) may carry a secret bound to `binding`. */
export function hostMatches(binding: string, host: string): boolean {
  if (binding.startsWith('*.')) {
    const suffix = binding.slice(1); // '.example.com'
    return REQUEST_NAME.test(host) && host.length > suffix.length && host.endsWith(suffix);
  }
  return host !== '' && host === binding;
}
