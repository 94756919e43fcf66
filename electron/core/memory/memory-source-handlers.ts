/** Memory's data sources (docs/design/memory.md) for Settings → Memory sources and Inspect → Memory (electron/core/memory/sources). */
import type { SourceManager } from './sources/source-manager';
import type { Handler } from '../router';

type SourceOps = 'memory.sources.list' | 'memory.sources.pause' | 'memory.sources.resume' | 'memory.sources.configs' | 'memory.sources.save' | 'memory.sources.remove';

export function memorySourceHandlers(sources: SourceManager): { [N in SourceOps]: Handler<N> } {
  return {
    'memory.sources.list': () => sources.list(),
    'memory.sources.pause': async (input) => (await sources.pause(input.id)).status,
    'memory.sources.resume': async (input) => (await sources.resume(input.id)).status,
    'memory.sources.configs': () => sources.configs(),
    'memory.sources.save': (input) => sources.save(input),
    'memory.sources.remove': (input) => sources.remove(input.id),
  };
}
