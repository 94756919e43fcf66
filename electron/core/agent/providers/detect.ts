/**
 * Finds a local model server on 127.0.0.1 at its usual port, to offer it when nothing is
 * set up: Ollama (11434) and LM Studio (1234), both OpenAI-compatible under /v1. Each is
 * asked for its models with a short timeout; one that does not answer, or answers something
 * that is not a model list, is not offered. A server already saved (same base URL) is skipped.
 */
import type { DetectedProvider } from '../../../../shared/model/provider';

export interface DetectCandidate {
  name: string;
  /** The base URL as it would be saved, e.g. http://127.0.0.1:11434/v1 */
  baseUrl: string;
}

export const DETECT_TIMEOUT_MS = 800;

export function defaultCandidates(ports: { ollama?: number; lmStudio?: number } = {}): DetectCandidate[] {
  return [
    { name: 'Ollama', baseUrl: `http://127.0.0.1:${ports.ollama ?? 11434}/v1` },
    { name: 'LM Studio', baseUrl: `http://127.0.0.1:${ports.lmStudio ?? 1234}/v1` },
  ];
}

export interface DetectOptions {
  /** Base URLs of the providers already saved. */
  saved: string[];
  candidates?: DetectCandidate[];
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** The same server however it is written: localhost or 127.0.0.1, with or without a trailing slash. */
export function sameServer(a: string, b: string): boolean {
  const norm = (s: string) => {
    try {
      const u = new URL(s);
      const host = u.hostname === 'localhost' || u.hostname === '[::1]' ? '127.0.0.1' : u.hostname.toLowerCase();
      const port = u.port || (u.protocol === 'https:' ? '443' : '80');
      return `${u.protocol}//${host}:${port}${u.pathname.replace(/\/+$/, '')}`;
    } catch {
      return s;
    }
  };
  return norm(a) === norm(b);
}

export async function detectLocalProviders(opts: DetectOptions): Promise<DetectedProvider[]> {
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? DETECT_TIMEOUT_MS;
  const candidates = (opts.candidates ?? defaultCandidates()).filter((c) => !opts.saved.some((s) => sameServer(s, c.baseUrl)));
  const found = await Promise.all(
    candidates.map(async (c): Promise<DetectedProvider | undefined> => {
      try {
        const res = await doFetch(`${c.baseUrl.replace(/\/+$/, '')}/models`, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
        if (!res.ok) {
          await res.body?.cancel().catch(() => undefined);
          return undefined;
        }
        const body = (await res.json()) as { data?: unknown };
        if (!Array.isArray(body?.data)) return undefined;
        const models = body.data.flatMap((m: unknown) => {
          const id = (m as { id?: unknown } | null)?.id;
          return typeof id === 'string' && id.length > 0 && id.length <= 300 ? [id] : [];
        });
        return { name: c.name, kind: 'openai-compatible', baseUrl: c.baseUrl, models };
      } catch {
        return undefined;
      }
    }),
  );
  return found.filter((f): f is DetectedProvider => f !== undefined);
}
