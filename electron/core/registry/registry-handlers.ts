/** The registry's operations: bundles, tools, search (docs/design/registry.md). */
import type { Registry } from './registry';
import type { Handler } from '../router';
import { approvalOf } from '../../../shared/model/tool-approval';

type RegistryOps =
  | 'bundles.list'
  | 'bundles.get'
  | 'bundles.put'
  | 'bundles.patch'
  | 'bundles.delete'
  | 'tools.list'
  | 'tools.search'
  | 'tools.find'
  | 'tools.get'
  | 'tools.put'
  | 'tools.patch'
  | 'tools.delete'
  | 'tools.usage'
  | 'tools.approval';

export function registryHandlers(registry: Registry): { [N in RegistryOps]: Handler<N> } {
  const store = registry.store;
  return {
    'bundles.list': (q) => store.listBundles(q),
    'bundles.get': ({ bundleId }) => store.getBundle(bundleId),
    'bundles.put': ({ bundleId, body }) => store.putBundle(bundleId, body),
    'bundles.patch': ({ bundleId, isEnabled }) => store.patchBundle(bundleId, { isEnabled }),
    'bundles.delete': ({ bundleId }) => store.deleteBundle(bundleId),
    'tools.list': (q) => store.listTools(q),
    'tools.search': (q) => registry.search(q),
    'tools.find': (q) => registry.find(q),
    'tools.get': ({ bundleId, slug, version }) => store.getTool(bundleId, slug, version),
    // Written by the user (the editor, the REST API): a script saved so runs without asking.
    'tools.put': ({ bundleId, slug, version, body }) => store.putTool(bundleId, slug, version, body, { trustScript: true }),
    'tools.patch': ({ bundleId, slug, version, isEnabled }) => store.patchTool(bundleId, slug, version, { isEnabled }),
    'tools.delete': async ({ bundleId, slug, version }) => {
      await store.deleteTool(bundleId, slug, version);
      return { deleted: true as const };
    },
    'tools.usage': ({ bundleId, slug, version }) => store.usage(store.getTool(bundleId, slug, version).id),
    'tools.approval': ({ bundleId, slug, version }) => approvalOf(store.getTool(bundleId, slug, version), store.approvals()),
  };
}
