/**
 * A local embeddings endpoint for tests: POST /v1/embeddings answers OpenAI's shape with a
 * bag-of-words vector per text — each word (after a small table of words of the same meaning,
 * CONCEPTS) hashed to one of DIMS dimensions — so texts that share a meaning but no word are
 * near, and the semantic path is testable without a model. Its behaviour is scripted (`mode`),
 * and it records what it was sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const DIMS = 64;

/** Words that mean the same here (and that the word ranking does not know as synonyms). */
export const CONCEPTS: Record<string, string> = {
  automobile: 'vehicle',
  automobiles: 'vehicle',
  wheels: 'vehicle',
  car: 'vehicle',
  cars: 'vehicle',
  vehicle: 'vehicle',
  rent: 'reserve',
  hire: 'reserve',
  lend: 'reserve',
  reserve: 'reserve',
  book: 'reserve',
};

const STOP = new Set(['a', 'an', 'the', 'to', 'of', 'for', 'in', 'on', 'at', 'and', 'or', 'by', 'with', 'i', 'need', 'want', 'some', 'me', 'my']);

function hash(word: string): number {
  let h = 2166136261;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
  return (h >>> 0) % DIMS;
}

export function bagOfWords(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    if (STOP.has(w)) continue;
    v[hash(CONCEPTS[w] ?? w)]! += 1;
  }
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

export type FakeMode = 'ok' | 'fail' | 'hang' | 'not-json' | 'short' | 'huge';

export interface FakeEmbeddings {
  /** As a provider's base URL: http://127.0.0.1:<port>/v1 */
  baseUrl: string;
  mode: FakeMode;
  /** Every request: its Authorization header and its texts. */
  requests: { auth: string | undefined; model: string; input: string[] }[];
  /** Answers vectors in reverse order (with their index), as a server may. */
  shuffle: boolean;
  close(): Promise<void>;
}

export async function fakeEmbeddings(): Promise<FakeEmbeddings> {
  const hanging = new Set<http.ServerResponse>();
  const state: FakeEmbeddings = {
    baseUrl: '',
    mode: 'ok',
    requests: [],
    shuffle: false,
    close: async () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; input: string[] };
      state.requests.push({ auth: req.headers.authorization, model: body.model, input: body.input });
      const mode = state.mode;
      if (mode === 'hang') {
        hanging.add(res);
        return;
      }
      if (mode === 'fail') {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `model crashed; you sent ${req.headers.authorization ?? 'no key'}` } }));
        return;
      }
      if (mode === 'not-json') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>a web page</html>');
        return;
      }
      if (mode === 'huge') {
        res.writeHead(200, { 'content-type': 'application/json' });
        // Past the client's bound, without a Content-Length.
        const block = Buffer.alloc(1024 * 1024, 0x20);
        for (let i = 0; i < 40; i++) res.write(block);
        res.end();
        return;
      }
      const input = mode === 'short' ? body.input.slice(1) : body.input;
      const data = input.map((t, index) => ({ object: 'embedding', index, embedding: bagOfWords(t) }));
      if (state.shuffle) data.reverse();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}
