/**
 * A sandbox worker that misbehaves on purpose, for sandbox-pool.test.ts: it says it is ready,
 * then never answers a run (as a worker stuck in one long native step would) after one log line
 * saying it started, or exits in the middle of one when its arguments say `{"exit": true}`.
 */
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', (m: { t: string; argsJson?: string; callId?: number }) => {
  if (m.t === 'init') parentPort!.postMessage({ t: 'ready' });
  else if (m.t === 'run' && m.argsJson === '{"exit":true}') process.exit(3);
  else if (m.t === 'run') parentPort!.postMessage({ t: 'log', callId: m.callId, line: { level: 'log', text: 'started', atMs: 0 } });
});
