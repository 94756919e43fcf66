/**
 * Quitting the desktop app: the core's close() (stop turns, flush the stores) finishes
 * before the process exits. Electron's `before-quit` is cancelled once, close() runs, then
 * the app exits for good. A close that fails still exits (with code 1), and one that hangs
 * past `timeoutMs` exits too, saying so, so quitting can never leave a window-less process.
 * No Electron import: main.ts passes `app.exit` in, so the order can be tested.
 */
export interface QuitDeps {
  /** The core's close(); undefined while the core has not started. */
  close: () => Promise<void> | undefined;
  /** Ends the process without emitting before-quit again (Electron's app.exit). */
  exit: (code: number) => void;
  timeoutMs?: number;
  warn?: (message: string) => void;
}

export const QUIT_TIMEOUT_MS = 15_000;

/** The `before-quit` listener: the first quit waits for close(); quits while closing are held. */
export function closeBeforeQuit(deps: QuitDeps): (event: { preventDefault(): void }) => void {
  let closing = false;
  const warn = deps.warn ?? ((m: string) => console.warn(m));
  return (event) => {
    event.preventDefault();
    if (closing) return;
    closing = true;
    const timeoutMs = deps.timeoutMs ?? QUIT_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const closed = Promise.resolve()
      .then(() => deps.close())
      .then(() => 'closed' as const);
    Promise.race([closed, timedOut])
      .then((how) => {
        if (how === 'timeout') {
          warn(`Toolsmith did not finish closing within ${timeoutMs} ms; quitting anyway (an unfinished call is marked cancelled at the next start)`);
          return 1;
        }
        return 0;
      })
      .catch((e: unknown) => {
        warn(`Toolsmith could not close cleanly: ${e instanceof Error ? e.message : String(e)}`);
        return 1;
      })
      .then((code) => {
        clearTimeout(timer);
        deps.exit(code);
      });
  };
}
