/** The store's change listeners. A listener that throws neither undoes a committed write nor stops the others. */
export class ChangeFeed<C> {
  private readonly listeners = new Set<(c: C) => void>();

  add(listener: (c: C) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(change: C): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (e) {
        console.error('tool store listener failed:', e);
      }
    }
  }
}
