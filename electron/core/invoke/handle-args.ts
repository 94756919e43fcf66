/**
 * Pass by handle (docs/design/tool-outputs.md, "Beyond the store"): an argument written
 * `{"$handle": "<uuid>"}` names a stored tool output, and the tool receives that output's text in
 * its place. A large payload goes from one tool into another (writefile's content, an HTTP body)
 * without entering a model's context. The resolver is given by the app (the tool-output store);
 * an unknown or expired handle is refused by it with a clear NOT_FOUND. The result is validated
 * against the schema like any argument.
 */

/** Resolves a handle for a caller (the conversation it belongs to); throws NOT_FOUND when unknown. */
export type HandleResolver = (handle: string, ownerId: string | undefined) => string;

function isHandleRef(v: unknown): v is { $handle: string } {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 1 && keys[0] === '$handle' && typeof (v as { $handle: unknown }).$handle === 'string';
}

/** Whether any value inside `v` is a handle reference (cheap: no copy, and no list of keys made). */
function holdsHandle(v: unknown, depth = 0): boolean {
  if (depth > 64 || typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (holdsHandle(v[i], depth + 1)) return true;
    return false;
  }
  if (typeof (v as { $handle?: unknown }).$handle === 'string' && isHandleRef(v)) return true;
  for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k) && holdsHandle((v as Record<string, unknown>)[k], depth + 1)) return true;
  return false;
}

function replace(v: unknown, resolve: (h: string) => string): unknown {
  if (isHandleRef(v)) return resolve(v.$handle);
  if (Array.isArray(v)) return v.map((x) => replace(x, resolve));
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replace(x, resolve)]));
  return v;
}

/** The arguments with every handle reference replaced by its stored text; the same object when there is none. */
export function resolveHandleArgs(args: unknown, ownerId: string | undefined, resolver: HandleResolver | undefined): unknown {
  if (!resolver || !holdsHandle(args)) return args;
  return replace(args, (h) => resolver(h, ownerId));
}
