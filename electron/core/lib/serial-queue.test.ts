import { describe, expect, it } from 'vitest';
import { KeyedQueue, SerialQueue } from './serial-queue';

const tick = () => new Promise((r) => setTimeout(r, 5));

/** A task that logs its start and end around a pause, failing at the end when asked. */
function stepper(log: string[]) {
  return (name: string, fail = false) =>
    async () => {
      log.push(`${name}:start`);
      await tick();
      log.push(`${name}:end`);
      if (fail) throw new Error(name);
      return name;
    };
}

describe('SerialQueue', () => {
  it('runs tasks one at a time in order; a failure is its caller’s and the next task runs', async () => {
    const q = new SerialQueue();
    const log: string[] = [];
    const step = stepper(log);
    const a = q.run(step('a'));
    const b = q.run(step('b', true));
    const c = q.run(step('c'));
    await expect(a).resolves.toBe('a');
    await expect(b).rejects.toThrow('b');
    await expect(c).resolves.toBe('c');
    expect(log).toEqual(['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
  });

  it('takes plain functions, and a task that throws at once rejects only its own promise', async () => {
    const q = new SerialQueue();
    const bad = q.run(() => {
      throw new Error('at once');
    });
    await expect(bad).rejects.toThrow('at once');
    await expect(q.run(() => 42)).resolves.toBe(42);
  });

  it('idle() settles after every task queued so far, and never rejects', async () => {
    const q = new SerialQueue();
    const log: string[] = [];
    const step = stepper(log);
    void q.run(step('a', true)).catch(() => undefined);
    void q.run(step('b'));
    await q.idle();
    expect(log).toEqual(['a:start', 'a:end', 'b:start', 'b:end']);
  });
});

describe('KeyedQueue', () => {
  it('runs tasks of one key one at a time, other keys freely, and releases after a failure', async () => {
    const m = new KeyedQueue();
    const log: string[] = [];
    const step = stepper(log);
    const a = m.run('k', step('a', true));
    const b = m.run('k', step('b'));
    const c = m.run('other', step('c'));
    await expect(a).rejects.toThrow('a');
    await Promise.all([b, c]);
    expect(log.indexOf('a:end')).toBeLessThan(log.indexOf('b:start'));
    expect(log.indexOf('c:start')).toBeLessThan(log.indexOf('a:end'));
    expect(m.size).toBe(0);
  });

  it('forgets a key as soon as its last task has settled', async () => {
    const m = new KeyedQueue();
    const first = m.run('k', tick);
    const second = m.run('k', tick);
    expect(m.size).toBe(1);
    await first;
    expect(m.size).toBe(1);
    await second;
    expect(m.size).toBe(0);
  });
});
