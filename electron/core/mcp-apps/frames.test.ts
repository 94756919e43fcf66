import { describe, expect, it } from 'vitest';
import { FRAME_DOCUMENT_TTL_MS, FRAME_GONE_MESSAGE, FrameDocuments, frameResponse } from './frames';

const CSP = "default-src 'none'; frame-ancestors app://toolsmith";
const GET = { method: 'GET', secFetchDest: 'iframe' };

/** A clock the test moves. */
function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('FrameDocuments', () => {
  it('gives ids of 256 random bits in hex, a new one each time', () => {
    const docs = new FrameDocuments();
    const ids = new Set(Array.from({ length: 10 }, () => docs.register('<p>', CSP)));
    expect(ids.size).toBe(10);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{64}$/);
  });

  it('serves a document once', () => {
    const docs = new FrameDocuments();
    const id = docs.register('<p>one</p>', CSP);
    expect(docs.take(id)).toEqual({ html: '<p>one</p>', csp: CSP });
    expect(docs.take(id)).toBeUndefined();
    expect(docs.take('0'.repeat(64))).toBeUndefined();
    expect(docs.stats).toEqual({ documents: 0, bytes: 0 });
  });

  it('forgets a document unused for 60 s', () => {
    const c = clock();
    const docs = new FrameDocuments({ now: c.now });
    const early = docs.register('<p>early</p>', CSP);
    c.advance(FRAME_DOCUMENT_TTL_MS - 1);
    const late = docs.register('<p>late</p>', CSP);
    expect(docs.take(early)?.html).toBe('<p>early</p>');

    const expired = docs.register('<p>expired</p>', CSP);
    c.advance(FRAME_DOCUMENT_TTL_MS);
    expect(docs.take(expired)).toBeUndefined();
    expect(docs.take(late)).toBeUndefined();
    expect(docs.stats).toEqual({ documents: 0, bytes: 0 });
  });

  it('drops expired documents as new ones come, without being asked for them', () => {
    const c = clock();
    const docs = new FrameDocuments({ now: c.now });
    docs.register('a', CSP);
    docs.register('b', CSP);
    c.advance(FRAME_DOCUMENT_TTL_MS);
    docs.register('c', CSP);
    expect(docs.stats.documents).toBe(1);
  });

  it('keeps at most 16 documents, dropping the oldest', () => {
    const docs = new FrameDocuments();
    const ids = Array.from({ length: 18 }, (_, i) => docs.register(`<p>${i}</p>`, CSP));
    expect(docs.stats.documents).toBe(16);
    expect(docs.take(ids[0]!)).toBeUndefined();
    expect(docs.take(ids[1]!)).toBeUndefined();
    expect(docs.take(ids[2]!)?.html).toBe('<p>2</p>');
    expect(docs.take(ids[17]!)?.html).toBe('<p>17</p>');
  });

  it('keeps at most 64 MiB, dropping the oldest until the new one fits', () => {
    const docs = new FrameDocuments();
    const page = 'a'.repeat(20 * 1024 * 1024);
    const [a, b, c] = [docs.register(page, CSP), docs.register(page, CSP), docs.register(page, CSP)];
    expect(docs.stats.bytes).toBe(3 * (page.length + CSP.length));
    const d = docs.register(page, CSP);
    expect(docs.stats).toEqual({ documents: 3, bytes: 3 * (page.length + CSP.length) });
    expect(docs.take(a)).toBeUndefined();
    for (const id of [b, c, d]) expect(docs.take(id)?.html).toHaveLength(page.length);
  });

  it('counts bytes as UTF-8, with the caps given', () => {
    const docs = new FrameDocuments({ maxBytes: 10, maxDocuments: 5 });
    const first = docs.register('éé', ''); // 4 bytes
    const second = docs.register('ééé', ''); // 6 bytes: 10 in all
    expect(docs.stats).toEqual({ documents: 2, bytes: 10 });
    docs.register('x', '');
    expect(docs.take(first)).toBeUndefined();
    expect(docs.take(second)?.html).toBe('ééé');
    expect(() => docs.register('x'.repeat(11), '')).toThrow(/larger than the registry/);
  });

  it('refuses a CSP that could not be a header value', () => {
    const docs = new FrameDocuments();
    expect(() => docs.register('<p>', "default-src 'none'\r\nSet-Cookie: a=b")).toThrow(/control character/);
    expect(docs.stats.documents).toBe(0);
  });
});

describe('frameResponse', () => {
  it('answers a GET from a frame with the page, its CSP and no X-Frame-Options', () => {
    const docs = new FrameDocuments();
    const id = docs.register('<p>page</p>', CSP);
    expect(frameResponse(docs, id, GET)).toEqual({
      status: 200,
      headers: {
        'Content-Security-Policy': CSP,
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
      },
      body: '<p>page</p>',
    });
  });

  it('answers a GET without Sec-Fetch-Dest (a client that does not send it)', () => {
    const docs = new FrameDocuments();
    expect(frameResponse(docs, docs.register('<p>', CSP), { method: 'GET' }).status).toBe(200);
  });

  it('answers 404 the second time, and for an id it never gave', () => {
    const docs = new FrameDocuments();
    const id = docs.register('<p>', CSP);
    expect(frameResponse(docs, id, GET).status).toBe(200);
    for (const again of [id, 'f'.repeat(64), 'nonsense', '']) {
      const r = frameResponse(docs, again, GET);
      expect(r.status).toBe(404);
      expect(r.body).toBe(FRAME_GONE_MESSAGE);
      expect(r.body).toBe('This app page was shown once already, or never existed: open it again from its card.');
      expect(r.headers['Content-Type']).toBe('text/plain; charset=utf-8');
      expect(r.headers['Cache-Control']).toBe('no-store');
      expect(r.headers['X-Frame-Options']).toBeUndefined();
    }
  });

  it('answers 404 once the page expired', () => {
    const c = clock();
    const docs = new FrameDocuments({ now: c.now });
    const id = docs.register('<p>', CSP);
    c.advance(FRAME_DOCUMENT_TTL_MS);
    expect(frameResponse(docs, id, GET).status).toBe(404);
  });

  it('refuses anything but GET with 405, and leaves the page for the frame', () => {
    const docs = new FrameDocuments();
    const id = docs.register('<p>', CSP);
    for (const method of ['POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'get']) {
      const r = frameResponse(docs, id, { method, secFetchDest: 'iframe' });
      expect(r.status, method).toBe(405);
      expect(r.headers.Allow).toBe('GET');
    }
    expect(frameResponse(docs, id, GET).status).toBe(200);
  });

  it('refuses with 403 a request that is not for a frame (a top-level page, a fetch), and leaves the page for the frame', () => {
    const docs = new FrameDocuments();
    const id = docs.register('<p>', CSP);
    for (const secFetchDest of ['document', 'empty', 'frame', 'embed', 'object', 'script', 'IFRAME', '']) {
      const r = frameResponse(docs, id, { method: 'GET', secFetchDest });
      expect(r.status, secFetchDest).toBe(403);
      expect(r.body).toBe('An app page is shown only inside its card in Toolsmith.');
      expect(r.headers['Content-Security-Policy']).toBe("default-src 'none'");
    }
    expect(frameResponse(docs, id, GET).body).toBe('<p>');
  });
});
