import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '../../testing/scripted-model-server';
import { defaultCandidates, detectLocalProviders, sameServer } from './detect';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function scripted(models: string[]): Promise<ScriptedModelServer> {
  const s = await startScriptedModelServer();
  s.setModels(models);
  closers.push(() => s.close());
  return s;
}

async function plain(handler: http.RequestListener): Promise<number> {
  const s = http.createServer(handler);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  closers.push(
    () =>
      new Promise<void>((r) => {
        s.closeAllConnections();
        s.close(() => r());
      }),
  );
  return (s.address() as AddressInfo).port;
}

describe('detectLocalProviders', () => {
  it('asks the usual ports by default', () => {
    expect(defaultCandidates()).toEqual([
      { name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
      { name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1' },
    ]);
  });

  it('offers servers that list models, with their models', async () => {
    const a = await scripted(['llama3.2', 'qwen2.5']);
    const b = await scripted([]);
    // A generous time: on a busy machine a local answer can take more than the default's second.
    const found = await detectLocalProviders({ saved: [], timeoutMs: 15_000, candidates: defaultCandidates({ ollama: a.port, lmStudio: b.port }) });
    expect(found).toEqual([
      { name: 'Ollama', kind: 'openai-compatible', baseUrl: `http://127.0.0.1:${a.port}/v1`, models: ['llama3.2', 'qwen2.5'] },
      { name: 'LM Studio', kind: 'openai-compatible', baseUrl: `http://127.0.0.1:${b.port}/v1`, models: [] },
    ]);
  });

  it('skips servers that are down, answer an error, answer something else, or are too slow', async () => {
    const html = await plain((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'));
    const err = await plain((_req, res) => res.writeHead(500).end('{}'));
    const other = await plain((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"models":[]}'));
    let slowAsked = 0;
    let slowAbandoned = 0;
    const slow = await plain((req) => {
      slowAsked++;
      req.socket.once('close', () => slowAbandoned++);
    });
    const found = await detectLocalProviders({
      saved: [],
      timeoutMs: 300,
      candidates: [html, err, other, slow, 9].map((port) => ({ name: `p${port}`, baseUrl: `http://127.0.0.1:${port}/v1` })),
    });
    expect(found).toEqual([]);
    // The server that never answers was asked once, and the request was dropped after the timeout, not left open.
    expect(slowAsked).toBe(1);
    await expect.poll(() => slowAbandoned).toBe(1);
  });

  it('skips a server already saved, however its URL is written', async () => {
    const a = await scripted(['m']);
    expect(await detectLocalProviders({ saved: [`http://localhost:${a.port}/v1/`], candidates: defaultCandidates({ ollama: a.port, lmStudio: 9 }) })).toEqual([]);
  });
});

describe('sameServer', () => {
  it('treats localhost and 127.0.0.1, default ports and trailing slashes alike', () => {
    expect(sameServer('http://localhost:11434/v1/', 'http://127.0.0.1:11434/v1')).toBe(true);
    expect(sameServer('https://api.openai.com:443/v1', 'https://api.openai.com/v1')).toBe(true);
    expect(sameServer('http://127.0.0.1:11434/v1', 'http://127.0.0.1:1234/v1')).toBe(false);
    expect(sameServer('http://127.0.0.1:11434/v1', 'http://127.0.0.1:11434/api')).toBe(false);
  });
});
