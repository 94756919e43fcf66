/**
 * Counts the AbortControllers made while it is in place (an AbortController costs Node more
 * than a quick call, so tests check a fast path makes none). `restore()` puts the global back.
 */
export function countAbortControllers(): { made(): number; restore(): void } {
  let made = 0;
  const Original = globalThis.AbortController;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      made++;
    }
  };
  return {
    made: () => made,
    restore: () => {
      globalThis.AbortController = Original;
    },
  };
}
