/**
 * The fix a failed tool run points at, read from the core's error: a secret that is not set
 * (NOT_FOUND "no secret named 'NAME'"), a secret not bound to the host it was sent to
 * (FORBIDDEN with `secret` and `host`), or a host not among Settings' allowed hosts
 * (FORBIDDEN "host '…' is not in the allowed hosts"). And the request that carries it to
 * Settings, where the right field is filled in and given the focus (kept here so any screen
 * that shows a failed run can send it; Settings consumes it).
 */
import { create } from 'zustand';
import type { ErrorInfo } from '../../shared/errors';

export type FixIt =
  /** Settings → Secrets with the name (and the hosts it should go to) filled in. */
  | { kind: 'secret'; name: string; hosts: string[]; reason: 'missing' | 'unbound' }
  /** Settings → Network with the entry added to the allowed hosts. */
  | { kind: 'host'; entry: string };

const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The host of the request the error's exchange records, if any. */
function requestHost(details: Record<string, unknown>): string | undefined {
  const url = text(record(details.http).url);
  if (!url) return undefined;
  try {
    return new URL(url).hostname || undefined;
  } catch {
    return undefined;
  }
}

/** An allowed-hosts entry for a host and port: the port only when it is not the scheme's default. */
export function hostEntry(host: string, port: number | undefined): string {
  return port === undefined || port === 80 || port === 443 ? host : `${host}:${port}`;
}

/** The fix for a failed run's error, or null when it is none of these. */
export function fixItFor(error: Pick<ErrorInfo, 'code' | 'message' | 'details'>): FixIt | null {
  const d = record(error.details);
  if (error.code === 'NOT_FOUND') {
    const name = text(d.secret) ?? /^no secret named '([^']+)'/.exec(error.message)?.[1];
    if (!name) return null;
    const host = requestHost(d);
    return { kind: 'secret', name, hosts: host ? [host] : [], reason: 'missing' };
  }
  if (error.code !== 'FORBIDDEN') return null;
  const secret = text(d.secret);
  const host = text(d.host);
  if (secret && host) {
    const bound = Array.isArray(d.hosts) ? d.hosts.filter((h): h is string => typeof h === 'string') : [];
    return { kind: 'secret', name: secret, hosts: [...bound.filter((h) => h !== host), host], reason: 'unbound' };
  }
  if (host && /is not in the allowed hosts/.test(error.message)) {
    return { kind: 'host', entry: hostEntry(host, typeof d.port === 'number' ? d.port : undefined) };
  }
  return null;
}

interface SettingsRequestState {
  /** A fix waiting for Settings to show it; Settings takes it once. */
  request: FixIt | null;
  send(fix: FixIt): void;
  /** Takes the request if it is of this kind (null otherwise). */
  take<K extends FixIt['kind']>(kind: K): Extract<FixIt, { kind: K }> | null;
}

export const useSettingsRequest = create<SettingsRequestState>((set, get) => ({
  request: null,
  send: (request) => set({ request }),
  take(kind) {
    const r = get().request;
    if (!r || r.kind !== kind) return null;
    set({ request: null });
    return r as Extract<FixIt, { kind: typeof kind }>;
  },
}));
