/**
 * A script not trusted that runs once anyway: an MCP client's user confirmed one call of it, told
 * that it is a script from outside this app (electron/core/mcp-server/call.ts), and nothing is
 * trusted for it. The MCP call gives its invocation leave (`ToolStore.allowScriptOnce`); the call
 * of that id, and no other (not a nested ctx.call, not a sequence's step), runs the script as if
 * it were trusted. The leave is used up when the call starts.
 */
import type { ToolStore } from '../bundles/tool-store';
import type { Backend } from '../invoke/dispatcher';

/** The `script` back-end made by `make`, which runs a call that has leave as if its script were trusted. */
export function withScriptLeave(store: ToolStore, make: (store: ToolStore) => Backend): Backend {
  const backend = make(store);
  return (call) => {
    const sha256 = call.tool.script?.sha256;
    if (sha256 === undefined || !store.takeScriptLeave(call.invocationId, sha256)) return backend(call);
    return make(trusting(store, sha256))(call);
  };
}

/** The store as this one call sees it: the one script counts as trusted; all else is the store's. */
function trusting(store: ToolStore, sha256: string): ToolStore {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'isScriptTrusted') return (h: string) => h === sha256 || target.isScriptTrusted(h);
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
