/**
 * The worker of ./sync-regex.ts, a worker-thread entry (started through ./worker-entry.ts;
 * the build emits it as sync-regex-worker.cjs beside the bundle). It imports nothing but
 * Node's modules and ./sync-regex-protocol.ts.
 *
 * The first message is the init: the shared state (two Int32 slots) and the port replies go
 * to. Each later message is one job: the worker marks it started (slot STARTED = its seq),
 * runs JavaScript's own RegExp on it (or re2js, for an RE2 program too large for the caller's
 * thread), posts the reply on the port, then marks it done
 * (slot DONE = its seq). The reply is posted before the mark, so the caller, woken by the
 * mark, finds it with receiveMessageOnPort.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { RE2JS } from 're2js';
import { DONE, STARTED, type SyncRegexInit, type SyncRegexJob, type SyncRegexReply } from './sync-regex-protocol';

const MAX_COMPILED = 200;
const compiled = new Map<string, RegExp>();

function regex(pattern: string, flags: string): RegExp {
  const key = `${flags}/${pattern}`;
  let re = compiled.get(key);
  if (!re) {
    re = new RegExp(pattern, flags.replace(/[gy]/g, ''));
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, re);
  }
  return re;
}

const compiledRe2 = new Map<string, RE2JS>();

function re2(source: string): RE2JS {
  let re = compiledRe2.get(source);
  if (!re) {
    re = RE2JS.compile(source);
    if (compiledRe2.size >= MAX_COMPILED) compiledRe2.delete(compiledRe2.keys().next().value as string);
    compiledRe2.set(source, re);
  }
  return re;
}

function run(m: SyncRegexJob): boolean {
  if (m.engine !== 're2') return regex(m.pattern, m.flags).test(m.input);
  const re = re2(m.pattern);
  return m.whole ? re.testExact(m.input) : re.test(m.input);
}

let state: Int32Array | undefined;
let replies: MessagePort | undefined;

parentPort?.on('message', (m: SyncRegexInit | SyncRegexJob) => {
  if ('init' in m) {
    state = new Int32Array(m.init.shared);
    replies = m.init.port;
    return;
  }
  if (!state || !replies) return;
  Atomics.store(state, STARTED, m.seq);
  Atomics.notify(state, STARTED);
  let reply: SyncRegexReply;
  try {
    reply = { seq: m.seq, ok: true, matched: run(m) };
  } catch (e) {
    const err = e as { message?: unknown } | null | undefined;
    reply = { seq: m.seq, ok: false, message: err?.message ? String(err.message) : String(e) };
  }
  replies.postMessage(reply);
  Atomics.store(state, DONE, m.seq);
  Atomics.notify(state, DONE);
});
