import { describe, expect, it } from 'vitest';
import { LocalFunctionRegistry } from '../builtin-functions/registry';
import { EventBus } from '../events';
import { defineModule, ModuleHost } from './feature-module';
import type { Platform } from './platform';

/** Just enough platform for the host: problems are recorded. */
function fakePlatform(): { platform: Platform; problems: { path: string; message: string }[] } {
  const problems: { path: string; message: string }[] = [];
  const platform = { problems: { report: (p: { path: string; message: string }) => problems.push(p) } } as unknown as Platform;
  return { platform, problems };
}

describe('feature modules', () => {
  it('start in list order, each reaching the ones before it', async () => {
    const started: string[] = [];
    const a = defineModule({ name: 'a', start: () => (started.push('a'), { api: { n: 1 } }) });
    const b = defineModule({ name: 'b', start: ({ use }) => (started.push('b'), { api: { n: use(a).n + 1 } }) });
    const host = new ModuleHost([a, b]);
    await host.start(fakePlatform().platform);
    expect(started).toEqual(['a', 'b']);
    expect(host.use(b).n).toBe(2);
  });

  it('refuse a module that uses one listed after it, naming both', async () => {
    const late = defineModule({ name: 'late', start: () => ({ api: 1 }) });
    const early = defineModule({ name: 'early', start: ({ use }) => ({ api: use(late) }) });
    await expect(new ModuleHost([early, late]).start(fakePlatform().platform)).rejects.toThrow("module 'early' uses 'late', which starts after it: list 'late' first");
    const stray = defineModule({ name: 'stray', start: () => ({ api: 1 }) });
    const user = defineModule({ name: 'user', start: ({ use }) => ({ api: use(stray) }) });
    await expect(new ModuleHost([user]).start(fakePlatform().platform)).rejects.toThrow("module 'user' uses 'stray', which is not in the module list");
  });

  it('refuse an operation handled by two modules', async () => {
    const one = defineModule({ name: 'one', start: () => ({ api: 0, handlers: { 'app.ping': () => ({ echo: '1', at: '' }) } }) });
    const two = defineModule({ name: 'two', start: () => ({ api: 0, handlers: { 'app.ping': () => ({ echo: '2', at: '' }) } }) });
    await expect(new ModuleHost([one, two]).start(fakePlatform().platform)).rejects.toThrow("operation 'app.ping' is handled by two modules (the second: 'two')");
  });

  it('stop every module in reverse order before any settles, then close them in reverse order', async () => {
    const log: string[] = [];
    let release!: () => void;
    const settled = new Promise<void>((r) => (release = r));
    const mod = (name: string, slowStop = false) =>
      defineModule({
        name,
        start: () => ({
          api: 0,
          stop: () => {
            log.push(`stop ${name}`);
            if (slowStop) return settled.then(() => void log.push(`settled ${name}`));
          },
          close: () => void log.push(`close ${name}`),
        }),
      });
    const running = await new ModuleHost([mod('a'), mod('b', true), mod('c')]).start(fakePlatform().platform);
    const stopping = running.stop(() => log.push('platform stops'));
    expect(log).toEqual(['stop c', 'stop b', 'stop a', 'platform stops']);
    release();
    await stopping;
    await running.close();
    expect(log).toEqual(['stop c', 'stop b', 'stop a', 'platform stops', 'settled b', 'close c', 'close b', 'close a']);
  });

  it('tell every module of a deleted conversation at once, and report one that fails as a problem', async () => {
    const forgot: string[] = [];
    const { platform, problems } = fakePlatform();
    const sync = defineModule({ name: 'sync', start: () => ({ api: 0, conversationDeleted: (id) => void forgot.push(`sync ${id}`) }) });
    const failing = defineModule({
      name: 'failing',
      start: () => ({
        api: 0,
        conversationDeleted: () => {
          throw new Error('disk gone');
        },
      }),
    });
    const later = defineModule({ name: 'later', start: () => ({ api: 0, conversationDeleted: async (id) => void forgot.push(`later ${id}`) }) });
    const running = await new ModuleHost([failing, sync, later]).start(platform);
    const done = running.conversationDeleted('c1');
    // The synchronous parts have run when the call returns.
    expect(forgot).toEqual(['sync c1', 'later c1']);
    await done;
    expect(problems).toEqual([expect.objectContaining({ path: 'c1', message: expect.stringContaining('failing: could not forget what it kept for a deleted conversation: disk gone') })]);
  });

  it('a private conversation that ended is forgotten by every module (a later one too), awaited, without the public event', async () => {
    const told: string[] = [];
    const platform = { ...fakePlatform().platform, events: new EventBus() } as Platform;
    const events: unknown[] = [];
    platform.events.on('conversations.changed', (c) => events.push(c));
    let forget: ((id: string) => Promise<void>) | undefined;
    let release = () => undefined as void;
    const first = defineModule({
      name: 'first',
      start: (ctx) => {
        forget = (id) => ctx.forgetPrivateConversation(id);
        return { api: 0, conversationDeleted: (id, gone) => void told.push(`first ${id} ${gone.private ? 'private' : 'deleted'}`) };
      },
    });
    const slow = defineModule({
      name: 'slow',
      start: () => ({
        api: 0,
        conversationDeleted: (id, gone) =>
          new Promise<void>((resolve) => {
            release = () => {
              told.push(`slow ${id} ${gone.private ? 'private' : 'deleted'}`);
              resolve();
            };
          }),
      }),
    });
    const running = await new ModuleHost([first, slow]).start(platform);
    let settled = false;
    const done = forget!('eval-1').then(() => (settled = true));
    expect(told).toEqual(['first eval-1 private']);
    await Promise.resolve();
    expect(settled).toBe(false);
    release();
    await done;
    expect(told).toEqual(['first eval-1 private', 'slow eval-1 private']);
    expect(events).toEqual([]);
    const deleted = running.conversationDeleted('c2');
    release();
    await deleted;
    expect(told.slice(2)).toEqual(['first c2 deleted', 'slow c2 deleted']);
  });

  it('close only the modules that started when one fails to start', async () => {
    const log: string[] = [];
    const ok = (name: string) => defineModule({ name, start: () => ({ api: 0, stop: () => void log.push(`stop ${name}`), close: () => void log.push(`close ${name}`) }) });
    const broken = defineModule({
      name: 'broken',
      start: (): { api: number } => {
        throw new Error('no disk');
      },
    });
    const host = new ModuleHost([ok('a'), ok('b'), broken, ok('d')]);
    await expect(host.start(fakePlatform().platform)).rejects.toThrow('no disk');
    await host.closeStarted();
    expect(log).toEqual(['stop b', 'stop a', 'close b', 'close a']);
  });

  it('let go of what a module opened when its own start throws partway, in reverse, and tell the start’s error', async () => {
    const log: string[] = [];
    const halfway = defineModule({
      name: 'halfway',
      start: async ({ ifStartFails }): Promise<{ api: number }> => {
        log.push('open store');
        ifStartFails(() => void log.push('close store'));
        log.push('start watcher');
        ifStartFails(() => {
          log.push('stop watcher');
          throw new Error('already gone');
        });
        await Promise.resolve();
        throw new Error('the index is corrupt');
      },
    });
    const host = new ModuleHost([halfway]);
    await expect(host.start(fakePlatform().platform)).rejects.toThrow('the index is corrupt');
    expect(log).toEqual(['open store', 'start watcher', 'stop watcher', 'close store']);
    // A module that started is closed by close(), not by what it registered for a failed start.
    log.length = 0;
    const fine = defineModule({ name: 'fine', start: ({ ifStartFails }) => (ifStartFails(() => void log.push('let go')), { api: 1, close: () => void log.push('close') }) });
    const host2 = new ModuleHost([fine]);
    const running = await host2.start(fakePlatform().platform);
    await running.stop();
    await running.close();
    expect(log).toEqual(['close']);
  });

  it('register functions before any module starts; a function reaches its module only once started', async () => {
    const functions = new LocalFunctionRegistry();
    const mod = defineModule({
      name: 'fn',
      functions: (fns, api: () => { greeting: string }) => fns.register('fn.greet', async () => api().greeting),
      start: () => ({ api: { greeting: 'hello' } }),
    });
    const host = new ModuleHost([mod]);
    host.registerFunctions(functions, { dataDir: '/nowhere' });
    const greet = functions.get('fn.greet')!;
    const ctx = {} as Parameters<typeof greet>[0];
    const signal = new AbortController().signal;
    await expect(greet(ctx, {}, signal)).rejects.toThrow("module 'fn' is not started");
    await host.start(fakePlatform().platform);
    await expect(greet(ctx, {}, signal)).resolves.toBe('hello');
  });
});
