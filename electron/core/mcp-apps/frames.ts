/**
 * Frame documents: the pages of apps, each registered under a one-time id and served once, with
 * its own CSP header, by the hosts (a loopback listener headless, a privileged scheme in
 * Electron). An id is 256 random bits; it is gone once served, and after 60 s unused. The
 * registry holds at most 16 documents and 64 MiB: past either, the oldest go first.
 *
 * Expiry is lazy (checked on register and take), so the registry holds no timer.
 */
import { randomBytes } from 'node:crypto';

export interface FrameDocument {
  html: string;
  /** The Content-Security-Policy header value (frameCsp). */
  csp: string;
}

export const FRAME_DOCUMENT_TTL_MS = 60_000;
export const FRAME_DOCUMENTS_MAX = 16;
export const FRAME_DOCUMENTS_MAX_BYTES = 64 * 1024 * 1024;

interface Entry {
  doc: FrameDocument;
  bytes: number;
  expiresAt: number;
}

export interface FrameDocumentsOptions {
  now?: () => number;
  ttlMs?: number;
  maxDocuments?: number;
  maxBytes?: number;
}

export class FrameDocuments {
  private readonly now: () => number;
  private readonly ttlMs: number;
  private readonly maxDocuments: number;
  private readonly maxBytes: number;
  /** In order of registration, oldest first. */
  private readonly entries = new Map<string, Entry>();
  private total = 0;

  constructor(opts: FrameDocumentsOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.ttlMs = opts.ttlMs ?? FRAME_DOCUMENT_TTL_MS;
    this.maxDocuments = opts.maxDocuments ?? FRAME_DOCUMENTS_MAX;
    this.maxBytes = opts.maxBytes ?? FRAME_DOCUMENTS_MAX_BYTES;
  }

  /**
   * Keeps a page until it is taken once or expires, and returns its id (64 hex digits). Drops
   * the oldest documents to stay within the caps. Throws on a document larger than the whole
   * registry or on a CSP that could not be a header value: the core builds both.
   */
  register(html: string, csp: string): string {
    // eslint-disable-next-line no-control-regex
    if (/[\x00-\x1f\x7f]/.test(csp)) throw new Error('FrameDocuments.register: the CSP holds a control character');
    const bytes = Buffer.byteLength(html, 'utf8') + Buffer.byteLength(csp, 'utf8');
    if (bytes > this.maxBytes) throw new Error(`FrameDocuments.register: a document of ${bytes} bytes is larger than the registry (${this.maxBytes})`);
    this.expire();
    for (const [id, e] of this.entries) {
      if (this.entries.size < this.maxDocuments && this.total + bytes <= this.maxBytes) break;
      this.remove(id, e);
    }
    const id = randomBytes(32).toString('hex');
    this.entries.set(id, { doc: { html, csp }, bytes, expiresAt: this.now() + this.ttlMs });
    this.total += bytes;
    return id;
  }

  /** The document registered under `id`, removed as it is given: a second take gets undefined. */
  take(id: string): FrameDocument | undefined {
    this.expire();
    const e = this.entries.get(id);
    if (!e) return undefined;
    this.remove(id, e);
    return e.doc;
  }

  /** How many documents wait to be served, and their bytes (expired ones not yet dropped included). */
  get stats(): { documents: number; bytes: number } {
    return { documents: this.entries.size, bytes: this.total };
  }

  private expire(): void {
    const now = this.now();
    for (const [id, e] of this.entries) if (now >= e.expiresAt) this.remove(id, e);
  }

  private remove(id: string, e: Entry): void {
    this.entries.delete(id);
    this.total -= e.bytes;
  }
}

export interface FrameRequest {
  method: string;
  /** The `Sec-Fetch-Dest` header when the browser sent one. */
  secFetchDest?: string;
}

export interface FrameResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export const FRAME_GONE_MESSAGE = 'This app page was shown once already, or never existed: open it again from its card.';

/**
 * The hosts' answer to a request for the frame document `id`. The request is checked before the
 * document is taken, so a refused request (405 for anything but GET, 403 when `Sec-Fetch-Dest`
 * is sent and is not `iframe`, i.e. the page opened as a top-level page or fetched) leaves the
 * id for the frame's own request. A GET from a frame takes the document: 200 with it and its
 * CSP, or 404 when it was served already, expired or never existed. No X-Frame-Options:
 * the CSP's frame-ancestors says who may frame the page.
 */
export function frameResponse(registry: FrameDocuments, id: string, req: FrameRequest): FrameResponse {
  if (req.method !== 'GET') return refusal(405, 'Only GET is answered here.', { Allow: 'GET' });
  if (req.secFetchDest !== undefined && req.secFetchDest !== 'iframe') {
    return refusal(403, 'An app page is shown only inside its card in Toolsmith.');
  }
  const doc = registry.take(id);
  if (!doc) return refusal(404, FRAME_GONE_MESSAGE);
  return {
    status: 200,
    headers: {
      'Content-Security-Policy': doc.csp,
      'Content-Type': 'text/html; charset=utf-8',
      ...COMMON_HEADERS,
    },
    body: doc.html,
  };
}

const COMMON_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

function refusal(status: number, body: string, extra: Record<string, string> = {}): FrameResponse {
  return {
    status,
    headers: {
      'Content-Security-Policy': "default-src 'none'",
      'Content-Type': 'text/plain; charset=utf-8',
      ...COMMON_HEADERS,
      ...extra,
    },
    body,
  };
}
