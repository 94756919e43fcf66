/** A core on a temp folder with a bundle to put script tools in, for the script tools' tests. */
import { v7 as uuidv7 } from 'uuid';
import { afterEach } from 'vitest';
import type { OpInput } from '../../../../shared/contract';
import type { ScriptLimits } from '../../../../shared/model/script-tool';
import type { ToolView } from '../../../../shared/model/tool';
import { createCore, type Core, type CoreConfig } from '../../app';
import { RESOURCES_DIR, useTempDirs } from '../../testing/temp-dir';

export interface ScriptKit {
  core: Core;
  dataDir: string;
  bundleId: string;
  /** Saves a script tool as the editor does ('tools.put': trusted); answers the view. */
  put(slug: string, source: string, more?: { version?: string; limits?: ScriptLimits; argSchema?: Record<string, unknown>; outputSchema?: Record<string, unknown>; requiresApproval?: boolean; bundleId?: string }): Promise<ToolView>;
  /** 'tools.invoke' of a saved tool; answers the contract's result (ok or error). */
  invoke(slug: string, args?: unknown, more?: Partial<OpInput<'tools.invoke'>>): ReturnType<Core['call']>;
}

export function scriptBody(source: string, more: { limits?: ScriptLimits; argSchema?: Record<string, unknown>; outputSchema?: Record<string, unknown>; requiresApproval?: boolean } = {}) {
  return {
    displayName: 'A script',
    description: 'A script tool made by a test.',
    tags: [],
    type: 'script' as const,
    argSchema: more.argSchema ?? { type: 'object' },
    outputSchema: more.outputSchema ?? {},
    script: { source, ...more.limits },
    isEnabled: true,
    ...(more.requiresApproval ? { requiresApproval: true } : {}),
  };
}

/** A kit per test, closed after it. */
export function useScriptKits(config: Partial<CoreConfig> = {}): () => Promise<ScriptKit> {
  const tempDir = useTempDirs();
  const cores: Core[] = [];
  afterEach(async () => {
    for (const c of cores.splice(0)) await c.close();
  });
  return async () => {
    const dataDir = await tempDir();
    const core = await createCore({ dataDir, resourcesDir: RESOURCES_DIR, host: 'headless', watch: false, ...config, scriptTools: { graceMs: 500, ...config.scriptTools } });
    cores.push(core);
    const bundleId = uuidv7();
    await core.registry.store.putBundle(bundleId, { slug: 'scripts', displayName: 'Scripts', description: '', isEnabled: true });
    const kit: ScriptKit = {
      core,
      dataDir,
      bundleId,
      put: async (slug, source, more = {}) => {
        const r = await core.call('tools.put', { bundleId: more.bundleId ?? bundleId, slug, version: more.version ?? '1', body: scriptBody(source, more) });
        if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
        return r.value as ToolView;
      },
      invoke: (slug, args = {}, more = {}) => core.call('tools.invoke', { bundleId, slug, version: '1', args, source: 'user', ...more }),
    };
    return kit;
  };
}
