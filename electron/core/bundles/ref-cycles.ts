/**
 * Finds `$ref` loops that never move to another part of the instance, such as
 * `{"$ref": "#"}` or `a -> b -> a` through `$defs`. ajv compiles some of these and then
 * overflows the stack on every validation, so they are refused up front.
 *
 * A loop is harmless when it passes through a keyword that descends into the instance
 * (properties, items, ...): the instance is finite. It is fatal when every step applies
 * to the same instance: `$ref`, `$dynamicRef`, allOf/anyOf/oneOf/not, if/then/else,
 * dependentSchemas. The schema was already bounded (size, depth, node count), so a plain
 * recursive walk is safe here.
 */

type Node = Record<string, unknown>;

const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const IN_PLACE_SINGLE = ['not', 'if', 'then', 'else'] as const;
const FALLBACK_BASE = 'urn:toolsmith:schema';

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function withoutFragment(uri: string): string {
  const k = uri.indexOf('#');
  return k < 0 ? uri : uri.slice(0, k);
}

function resolveUri(ref: string, base: string): string | undefined {
  try {
    return new URL(ref, base).href;
  } catch {
    return undefined;
  }
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Keywords whose value is a schema, a map of schemas, or a list of schemas. */
const SCHEMA_VALUED = new Set(['additionalProperties', 'propertyNames', 'items', 'contains', 'not', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

type Place = 'schema' | 'map' | 'list' | 'data';

function childPlace(parent: Place, key: string): Place {
  if (parent === 'map' || parent === 'list') return 'schema';
  if (parent === 'data') return 'data';
  if (SCHEMA_VALUED.has(key)) return 'schema';
  if (SCHEMA_MAPS.has(key)) return 'map';
  if (SCHEMA_LISTS.has(key)) return 'list';
  return 'data';
}

class SchemaIndex {
  /** `<resource>#<json pointer>` and `<resource>#<anchor>` -> node; every object is addressable by pointer. */
  readonly targets = new Map<string, Node>();
  readonly dynamicAnchors = new Map<string, Node[]>();
  readonly baseOf = new Map<Node, string>();
  readonly pointerOf = new Map<Node, string>();
  /** Objects in schema positions: where a loop search starts. Data (const, enum, default) is not. */
  readonly schemas: Node[] = [];

  constructor(root: Node) {
    const rootBase = typeof root.$id === 'string' ? (resolveUri(root.$id, FALLBACK_BASE) ?? FALLBACK_BASE) : FALLBACK_BASE;
    this.visit(root, 'schema', withoutFragment(rootBase), '', [{ uri: withoutFragment(rootBase), pointer: '' }]);
  }

  /** `resources` are the enclosing schema resources, with this node's pointer inside each. */
  private visit(value: unknown, place: Place, base: string, pointer: string, resources: { uri: string; pointer: string }[]): void {
    const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, k) => [String(k), v]) : isNode(value) ? Object.entries(value) : [];
    if (entries.length === 0 && !isNode(value)) return;
    let here = resources;
    if (isNode(value)) {
      if (place === 'schema' && typeof value.$id === 'string' && pointer !== '') {
        const uri = resolveUri(value.$id, base);
        if (uri) {
          base = withoutFragment(uri);
          here = [...resources, { uri: base, pointer: '' }];
        }
      }
      this.baseOf.set(value, base);
      this.pointerOf.set(value, `#${pointer}`);
      for (const r of here) this.targets.set(`${r.uri}#${r.pointer}`, value);
      if (place === 'schema') {
        this.schemas.push(value);
        if (typeof value.$anchor === 'string') this.targets.set(`${base}#${value.$anchor}`, value);
        if (typeof value.$dynamicAnchor === 'string') {
          this.targets.set(`${base}#${value.$dynamicAnchor}`, value);
          const list = this.dynamicAnchors.get(value.$dynamicAnchor) ?? [];
          list.push(value);
          this.dynamicAnchors.set(value.$dynamicAnchor, list);
        }
      }
    }
    for (const [key, child] of entries) {
      const k = escapePointer(key);
      const p = Array.isArray(value) ? (place === 'list' ? 'schema' : 'data') : childPlace(place, key);
      this.visit(child, p, base, `${pointer}/${k}`, here.map((r) => ({ uri: r.uri, pointer: `${r.pointer}/${k}` })));
    }
  }

  resolve(ref: string, from: Node): Node | undefined {
    const uri = resolveUri(ref, this.baseOf.get(from) ?? FALLBACK_BASE);
    if (!uri) return undefined;
    const k = uri.indexOf('#');
    const resource = k < 0 ? uri : uri.slice(0, k);
    const fragment = k < 0 ? '' : decodeURIComponent(uri.slice(k + 1));
    return this.targets.get(`${resource}#${fragment}`);
  }

  /** Subschemas applied to the same instance as `node`. */
  inPlace(node: Node): Node[] {
    const out: Node[] = [];
    if (typeof node.$ref === 'string') {
      const t = this.resolve(node.$ref, node);
      if (t) out.push(t);
    }
    if (typeof node.$dynamicRef === 'string') {
      // Which anchor wins depends on the dynamic scope; assume any of them may.
      const t = this.resolve(node.$dynamicRef, node);
      if (t) out.push(t);
      const name = node.$dynamicRef.startsWith('#') ? node.$dynamicRef.slice(1) : undefined;
      if (name) out.push(...(this.dynamicAnchors.get(name) ?? []));
    }
    for (const kw of IN_PLACE_LISTS) {
      const list = node[kw];
      if (Array.isArray(list)) for (const s of list) if (isNode(s)) out.push(s);
    }
    for (const kw of IN_PLACE_SINGLE) if (isNode(node[kw])) out.push(node[kw] as Node);
    if (isNode(node.dependentSchemas)) for (const s of Object.values(node.dependentSchemas)) if (isNode(s)) out.push(s);
    return out;
  }
}

/** The loop as JSON pointers (first node repeated at the end), or undefined if there is none. */
export function findInPlaceRefCycle(schema: Record<string, unknown>): string[] | undefined {
  const index = new SchemaIndex(schema);
  const state = new Map<Node, 'open' | 'done'>();
  const trail: Node[] = [];

  const visit = (node: Node): Node[] | undefined => {
    state.set(node, 'open');
    trail.push(node);
    for (const next of index.inPlace(node)) {
      const s = state.get(next);
      if (s === 'open') return [...trail.slice(trail.indexOf(next)), next];
      if (s === undefined) {
        const found = visit(next);
        if (found) return found;
      }
    }
    trail.pop();
    state.set(node, 'done');
    return undefined;
  };

  for (const node of index.schemas) {
    if (state.has(node)) continue;
    const cycle = visit(node);
    if (cycle) return cycle.map((n) => index.pointerOf.get(n) ?? '?');
  }
  return undefined;
}
