/**
 * One job posted to a worker thread, and the first of what can end it: the worker's reply, its
 * error, its exit, the caller's abort, the time limit. Every listener and the timer are removed
 * before the answer; the caller decides from it whether the worker is kept or terminated and
 * which error the user reads (the regular-expression sessions and the buffer searcher do).
 */
import type { Worker } from 'node:worker_threads';

export type WorkerEnd<R> =
  | { kind: 'reply'; reply: R }
  | { kind: 'error'; error: Error; outOfMemory: boolean }
  | { kind: 'exit' }
  | { kind: 'abort' }
  | { kind: 'timeout' };

export function postForReply<R>(worker: Worker, job: unknown, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<WorkerEnd<R>> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (end: WorkerEnd<R>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(end);
    };
    const onMessage = (reply: R) => finish({ kind: 'reply', reply });
    const onError = (error: Error) => finish({ kind: 'error', error, outOfMemory: (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY' });
    const onExit = () => finish({ kind: 'exit' });
    const onAbort = () => finish({ kind: 'abort' });
    const timer = setTimeout(() => finish({ kind: 'timeout' }), opts.timeoutMs);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    worker.postMessage(job);
  });
}
