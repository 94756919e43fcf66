/** A contract round trip over the headless WebSocket vs a raw `ws` echo of the same frame. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import { createCore } from '../electron/core/app';
import { startHttpHost } from '../electron/host/transports/http';
import { result, timeMedian, type BenchResult } from './harness';

const ROUNDS = 3000;

function roundTripper(ws: WebSocket): (frame: string) => Promise<void> {
  let waiting: (() => void) | null = null;
  ws.on('message', () => {
    const w = waiting;
    waiting = null;
    w?.();
  });
  return (frame) =>
    new Promise<void>((resolve) => {
      waiting = resolve;
      ws.send(frame);
    });
}

export async function run(): Promise<BenchResult[]> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-bench-'));
  const core = await createCore({ dataDir, resourcesDir: path.resolve(import.meta.dirname, '..', 'resources'), host: 'headless', watch: false });
  const host = await startHttpHost({ core, staticDir: dataDir });
  const token = (await fs.readFile(host.tokenFile, 'utf8')).trim();

  const echo = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  echo.on('connection', (s) => s.on('message', (d) => s.send(d)));
  await new Promise((r) => echo.once('listening', r));
  const echoPort = (echo.address() as { port: number }).port;

  const ours = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { headers: { Authorization: `Bearer ${token}` } });
  const raw = new WebSocket(`ws://127.0.0.1:${echoPort}`);
  await Promise.all([ours, raw].map((ws) => new Promise((r) => ws.once('open', r))));

  let id = 0;
  const callOurs = roundTripper(ours);
  const callRaw = roundTripper(raw);
  const frame = () => `{"id":${++id},"name":"app.ping","input":{"echo":"hello"}}`;

  // Interleave the two so drift in machine load hits both alike.
  const oursMs: number[] = [];
  const rawMs: number[] = [];
  for (let round = 0; round < 5; round++) {
    oursMs.push(await timeMedian(() => callOurs(frame()), ROUNDS / 5));
    rawMs.push(await timeMedian(() => callRaw(frame()), ROUNDS / 5));
  }
  ours.close();
  raw.close();
  echo.close();
  await host.close();
  await core.close();
  await fs.rm(dataDir, { recursive: true, force: true });

  const o = oursMs.sort((a, b) => a - b)[2]!;
  const b = rawMs.sort((a, b) => a - b)[2]!;
  return [result('contract round trip over the headless WebSocket vs raw ws echo', 'ms/call', o, b, 1.5, `${ROUNDS} calls each, median of 5 interleaved rounds`)];
}
