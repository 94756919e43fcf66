/** The script tools' operations: a saved script's source, and trusting one not written in this app. */
import { AppError } from '../../../shared/errors';
import { sha256Hex } from '../bundles/script-files';
import type { ToolStore } from '../bundles/tool-store';
import type { Handler } from '../router';

type ScriptToolsOps = 'tools.scriptSource' | 'tools.trustScript';

export function scriptToolsHandlers(store: ToolStore): { [N in ScriptToolsOps]: Handler<N> } {
  return {
    'tools.scriptSource': async ({ bundleId, slug, version }) => {
      const s = await store.scriptSource(bundleId, slug, version);
      if (s.ok) return { source: s.source, sha256: s.sha256 };
      // The SHA-256 of what is shown: "Trust" sends it back, and what the file holds now must match it.
      return { source: s.source ?? '', sha256: s.source !== undefined ? sha256Hex(s.source) : s.sha256, problem: s.problem };
    },
    // What is trusted is what the user read: the file on disk must hold the source shown and the one the tool records.
    'tools.trustScript': async ({ bundleId, slug, version, sha256 }) => {
      const t = store.getTool(bundleId, slug, version);
      if (t.type !== 'script' || !t.script) throw new AppError('VALIDATION_FAILED', `'${t.slug}' is a tool of type '${t.type}': only script tools are trusted`);
      await store.trustShownScript(t.bundleId, t.slug, t.version, sha256);
      return { trusted: true as const };
    },
  };
}
