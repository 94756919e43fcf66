/**
 * Feature modules and their lifecycle (docs/architecture.md, "Feature modules"). A module owns
 * its folder: it builds its services on the platform, registers its built-in functions, adds
 * its handlers to the router and its part to every model turn, reacts to a deleted
 * conversation, and says how it stops and closes. The core starts a fixed list of modules in
 * order (electron/core/modules.ts) and, on close, stops them all and then closes them, both in
 * reverse order.
 */
import type { OpName } from '../../../shared/contract';
import { AppError } from '../../../shared/errors';
import type { Handler } from '../router';
import type { LocalFunctionRegistry } from '../builtin-functions/registry';
import type { Platform } from './platform';

/** What a module is given when it starts: the platform, and the modules started before it. */
export interface ModuleContext extends Platform {
  /** The service of a module listed before this one; throws when it is not (yet) started. */
  use<A>(module: ModuleRef<A>): A;
  /**
   * What to let go of should this module's start throw after opening it (a store, a watcher):
   * run in reverse order before the error goes on. Once started, close() does that job.
   */
  ifStartFails(letGo: () => unknown): void;
  /**
   * A private conversation ended: one kept outside the timeline (an eval attempt's, in memory),
   * which no window and no other process knows. Every started module forgets what it kept for
   * it, as for a deleted conversation but without the public 'conversations.changed' event;
   * settles when they all have (failures are reported as problems).
   */
  forgetPrivateConversation(conversationId: string): Promise<void>;
}

/** How a conversation went: deleted from the timeline, or a private one (never in it) that ended. */
export interface ConversationGone {
  private: boolean;
}

/** Any module, seen only as the service it gives (what `use()` and the module list take). */
export interface ModuleRef<A> {
  readonly name: string;
  start(ctx: ModuleContext): { api: A } | Promise<{ api: A }>;
}

/** A started module. */
export interface StartedModule<A, O extends OpName> {
  /** What later modules reach with `use()`. */
  api: A;
  /** The module's handlers: exactly its operations of the contract. */
  handlers?: { [N in O]: Handler<N> };
  /** A conversation was deleted (or a private one ended): forget what is kept for it (errors are reported as problems). */
  conversationDeleted?(conversationId: string, gone: ConversationGone): void | Promise<void>;
  /**
   * Stop: cancel running work and answer waiting questions at once (before the next module is
   * told), then settle. close() stops every module before it closes any.
   */
  stop?(): void | Promise<void>;
  /** Let go of everything held (files, watchers, processes): after every module has stopped. */
  close?(): void | Promise<void>;
}

export interface FeatureModule<A = unknown, O extends OpName = never> {
  readonly name: string;
  /**
   * Registers the module's built-in functions, before the registry opens (it reads which
   * local functions exist). `api` reaches the module's service once started; a function
   * called before that gets UNAVAILABLE from it.
   */
  functions?(functions: LocalFunctionRegistry, api: () => A, platform: { dataDir: string }): void;
  start(ctx: ModuleContext): StartedModule<A, O> | Promise<StartedModule<A, O>>;
}

/** A module, with its service and operations inferred. */
export function defineModule<A, O extends OpName = never>(module: FeatureModule<A, O>): FeatureModule<A, O> {
  return module;
}

/** The operations a list of modules handles. */
export type OpsOf<M> = M extends FeatureModule<infer _A, infer O> ? O : never;

export interface RunningModules {
  /** The handlers of every module, by operation. */
  handlers: Partial<Record<OpName, Handler<OpName>>>;
  conversationDeleted(conversationId: string, gone?: ConversationGone): Promise<void>;
  /** Stops every module in reverse order; `thenAtOnce` runs after each was told, before waiting for them to settle. */
  stop(thenAtOnce?: () => void): Promise<void>;
  close(): Promise<void>;
}

interface Entry {
  module: FeatureModule<unknown, OpName>;
  api: unknown;
  started?: StartedModule<unknown, OpName>;
}

/** Registers the modules' functions (before the registry opens), then starts them: see the file's comment. */
export class ModuleHost {
  private readonly entries = new Map<FeatureModule<unknown, OpName>, Entry>();
  private readonly order: Entry[] = [];
  private platform: Platform | undefined;

  constructor(modules: readonly ModuleRef<unknown>[]) {
    for (const m of modules as unknown as readonly FeatureModule<unknown, OpName>[]) {
      if (this.entries.has(m)) throw new Error(`module '${m.name}' is listed twice`);
      const entry: Entry = { module: m, api: undefined };
      this.entries.set(m, entry);
      this.order.push(entry);
    }
  }

  /** The service of a started module (for the core's own surface). */
  readonly use = <A>(m: ModuleRef<A>): A => {
    const e = this.entries.get(m as unknown as FeatureModule<unknown, OpName>);
    if (!e?.started) throw new Error(`module '${m.name}' is not started`);
    return e.api as A;
  };

  registerFunctions(functions: LocalFunctionRegistry, platform: { dataDir: string }): void {
    for (const e of this.order) {
      e.module.functions?.(
        functions,
        () => {
          if (!e.started) throw new AppError('UNAVAILABLE', `module '${e.module.name}' is not started`);
          return e.api;
        },
        platform,
      );
    }
  }

  /**
   * Starts each module in list order. One that fails to start leaves the ones started before
   * it to be closed by the caller (close() closes what started).
   */
  async start(platform: Platform): Promise<RunningModules> {
    this.platform = platform;
    const handlers: Partial<Record<OpName, Handler<OpName>>> = {};
    for (const e of this.order) {
      const letGo: (() => unknown)[] = [];
      const ctx: ModuleContext = Object.assign(Object.create(platform) as Platform, {
        ifStartFails: (f: () => unknown) => void letGo.push(f),
        forgetPrivateConversation: (conversationId: string) => this.conversationGone(conversationId, { private: true }),
        use: <A>(m: ModuleRef<A>): A => {
          const dep = this.entries.get(m as unknown as FeatureModule<unknown, OpName>);
          if (!dep) throw new Error(`module '${e.module.name}' uses '${m.name}', which is not in the module list`);
          if (!dep.started) throw new Error(`module '${e.module.name}' uses '${m.name}', which starts after it: list '${m.name}' first`);
          return dep.api as A;
        },
      });
      let started: StartedModule<unknown, OpName>;
      try {
        started = await e.module.start(ctx);
      } catch (err) {
        for (const f of letGo.reverse()) {
          try {
            await f();
          } catch {
            // The start's own error is the one to tell; what could not be let go is lost with the core.
          }
        }
        throw err;
      }
      e.api = started.api;
      e.started = started;
      for (const [name, h] of Object.entries(started.handlers ?? {}) as [OpName, Handler<OpName>][]) {
        if (handlers[name]) throw new Error(`operation '${name}' is handled by two modules (the second: '${e.module.name}')`);
        handlers[name] = h;
      }
    }
    return this.running(handlers);
  }

  /** Closes the modules that started, in reverse order (for a core whose start failed). */
  async closeStarted(): Promise<void> {
    const r = this.running({});
    await r.stop();
    await r.close();
  }

  /**
   * Every started module is told at once (in the event's turn: what one forgets synchronously
   * is gone when the deleting call returns); failures are reported as problems.
   */
  private async conversationGone(conversationId: string, gone: ConversationGone): Promise<void> {
    const report = (name: string, err: unknown) =>
      this.platform?.problems.report({ kind: 'io-error', path: conversationId, message: `${name}: could not forget what it kept for a ${gone.private ? 'finished private' : 'deleted'} conversation: ${(err as Error).message}` });
    const pending: Promise<void>[] = [];
    for (const e of this.order.filter((x) => x.started)) {
      try {
        const r = e.started!.conversationDeleted?.(conversationId, gone);
        if (r)
          pending.push(
            r.catch((err: unknown) => {
              report(e.module.name, err);
            }),
          );
      } catch (err) {
        report(e.module.name, err);
      }
    }
    await Promise.all(pending);
  }

  private running(handlers: Partial<Record<OpName, Handler<OpName>>>): RunningModules {
    const started = () => this.order.filter((e) => e.started);
    return {
      handlers,
      conversationDeleted: (conversationId, gone = { private: false }) => this.conversationGone(conversationId, gone),
      stop: async (thenAtOnce) => {
        const settling: Promise<void>[] = [];
        for (const e of started().reverse()) {
          const r = e.started!.stop?.();
          if (r) settling.push(r);
        }
        thenAtOnce?.();
        await Promise.all(settling);
      },
      // Every module closes even when one fails; the failures are thrown together at the end.
      close: async () => {
        const failures: unknown[] = [];
        for (const e of started().reverse()) {
          try {
            await e.started!.close?.();
          } catch (err) {
            failures.push(err);
          }
        }
        if (failures.length === 1) throw failures[0];
        if (failures.length > 1) throw new AggregateError(failures, `${failures.length} modules failed to close`);
      },
    };
  }
}
