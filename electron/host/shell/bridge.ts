/**
 * What the preload exposes as `window.toolsmith`: `call` and `on`, for contract names only.
 * Written without Electron so it can be tested; preload.ts passes ipcRenderer in.
 * It imports the contract's names, never its schemas: the preload must stay small and
 * free of zod (the core validates every call anyway). scripts/preload-size.test.ts checks.
 */
import type { ContractClient, EventName } from '../../../shared/contract';
import { isEventName, isOpName } from '../../../shared/contract-names';
import type { Result } from '../../../shared/errors';

export const CALL_CHANNEL = 'toolsmith:call';
export const EVENT_CHANNEL = 'toolsmith:event';

export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

export function createBridge(ipc: IpcRendererLike): ContractClient {
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  ipc.on(EVENT_CHANNEL, (_event, message) => {
    const m = message as { name?: unknown; payload?: unknown } | undefined;
    if (!m || !isEventName(m.name)) return;
    for (const cb of listeners.get(m.name) ?? []) cb(m.payload);
  });

  return {
    call(name, input) {
      if (!isOpName(name)) {
        const refused = { ok: false, error: { code: 'VALIDATION_FAILED', message: `unknown operation '${String(name)}'` } } as const;
        return Promise.resolve(refused as Result<never>);
      }
      return ipc.invoke(CALL_CHANNEL, name, input) as Promise<never>;
    },
    on(name, handler) {
      if (!isEventName(name)) throw new Error(`unknown event '${String(name)}'`);
      let set = listeners.get(name);
      if (!set) listeners.set(name, (set = new Set()));
      const cb = handler as (payload: unknown) => void;
      set.add(cb);
      return () => set.delete(cb);
    },
  };
}
