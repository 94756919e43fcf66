/**
 * Expectations inside a scripted model server's replies: a throw there would leave the request
 * hanging, so a guarded reply keeps the failure, answers a text naming it, and the test
 * rethrows it after it ends.
 */
import { afterEach } from 'vitest';
import type { RecordedRequest, ScriptedReply } from './scripted-model-server';

export function useGuardedScript(): (f: (r: RecordedRequest) => ScriptedReply) => (r: RecordedRequest) => ScriptedReply {
  const failures: unknown[] = [];
  afterEach(() => {
    const f = failures.splice(0);
    if (f.length) throw f[0];
  });
  return (f) => (r) => {
    try {
      return f(r);
    } catch (e) {
      failures.push(e);
      return { kind: 'text', text: `the script failed: ${(e as Error).message}` };
    }
  };
}
