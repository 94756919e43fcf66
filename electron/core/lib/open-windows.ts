/**
 * The windows open to answer what waits for the user (the Electron window, or a browser on the
 * headless host): each attaches while it is connected; when the last one goes, `onNoneLeft` runs
 * (what waited can no longer be answered).
 */
export class OpenWindows {
  private count = 0;

  constructor(private readonly onNoneLeft: () => void) {}

  /** A window connected; the answer detaches it (once). */
  attach(): () => void {
    this.count++;
    let attached = true;
    return () => {
      if (!attached) return;
      attached = false;
      this.count--;
      if (this.count === 0) this.onNoneLeft();
    };
  }

  any(): boolean {
    return this.count > 0;
  }
}
