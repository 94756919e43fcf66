/** The script tools' operations: a saved script's source, and trusting one not written in this app. */
import { AppError } from '../../../shared/errors';
import type { ToolStore } from '../bundles/tool-store';
import type { Handler } from '../router';

type ScriptToolsOps = 'tools.scriptSource' | 'tools.trustScript';

export function scriptToolsHandlers(store: ToolStore): { [N in ScriptToolsOps]: Handler<N> } {
  return {
    'tools.scriptSource': async ({ bundleId, slug, version }) => {
      const s = await store.scriptSource(bundleId, slug, version);
      return s.ok ? { source: s.source, sha256: s.sha256 } : { source: s.source ?? '', sha256: s.sha256, problem: s.problem };
    },
    'tools.trustScript': async ({ bundleId, slug, version }) => {
      const t = store.getTool(bundleId, slug, version);
      if (t.type !== 'script' || !t.script) throw new AppError('VALIDATION_FAILED', `'${t.slug}' is a tool of type '${t.type}': only script tools are trusted`);
      await store.trustScripts([t.script.sha256], 'allowed');
      return { trusted: true as const };
    },
  };
}
