/**
 * Following files of the data folder that another process on it replaces: `toolsmith mcp` and
 * the app both remember approvals in `approvals.json`, and each reads it again when the other
 * writes it (else the next change of one would write over the other's).
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Core } from '../../core/app';

/**
 * Calls a file's handler (debounced) when it is replaced: the folder is watched, since writes
 * rename a new file over the old one.
 */
export function watchDataFiles(dataDir: string, handlers: Record<string, () => Promise<void>>): FSWatcher | undefined {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  try {
    const w = watch(dataDir, (_event, name) => {
      const handler = name ? handlers[name] : undefined;
      if (!name || !handler) return;
      clearTimeout(timers.get(name));
      timers.set(name, setTimeout(() => handler().catch((e: unknown) => console.error(`Toolsmith: could not read ${name} again: ${(e as Error).message}`)), 100));
    });
    w.unref();
    w.on('close', () => {
      for (const t of timers.values()) clearTimeout(t);
    });
    return w;
  } catch (e) {
    console.error(`Toolsmith: changes to the approvals will not be seen until a restart (${(e as Error).message})`);
    return undefined;
  }
}

/** The app reads the remembered approvals again when `toolsmith mcp` records one ("Always allow" answered for it). */
export function followApprovalsFile(core: Pick<Core, 'dataDir' | 'mcpServer'>): () => void {
  const w = watchDataFiles(core.dataDir, { 'approvals.json': () => core.mcpServer.reloadApprovals() });
  return () => w?.close();
}
