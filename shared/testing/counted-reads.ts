/** For tests: counting the work a check does, rather than timing it. */

/**
 * `value` with every object in it wrapped so that each read of a property or of the keys
 * is counted in `reads.n`: a measure of the work a check did, whatever the machine's speed.
 */
export function counted<T>(value: T): { value: T; reads: { n: number } } {
  const reads = { n: 0 };
  const wrapped = new WeakMap<object, object>();
  const wrap = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    let p = wrapped.get(v);
    if (!p) {
      p = new Proxy(v, {
        get(t, k, r) {
          reads.n++;
          return wrap(Reflect.get(t, k, r));
        },
        ownKeys(t) {
          reads.n++;
          return Reflect.ownKeys(t);
        },
      });
      wrapped.set(v, p);
    }
    return p;
  };
  return { value: wrap(value) as T, reads };
}
