import type { EventName, EventPayload } from '../../shared/contract';

type AnyHandler = (name: EventName, payload: unknown) => void;

/** The core's typed event stream. Hosts subscribe with `onAny` and forward to windows. */
export class EventBus {
  private readonly byName = new Map<EventName, Set<(payload: unknown) => void>>();
  private readonly any = new Set<AnyHandler>();

  emit<N extends EventName>(name: N, payload: EventPayload<N>): void {
    for (const h of this.byName.get(name) ?? []) safely(() => h(payload));
    for (const h of this.any) safely(() => h(name, payload));
  }

  on<N extends EventName>(name: N, handler: (payload: EventPayload<N>) => void): () => void {
    let set = this.byName.get(name);
    if (!set) this.byName.set(name, (set = new Set()));
    const h = handler as (payload: unknown) => void;
    set.add(h);
    return () => set.delete(h);
  }

  onAny(handler: AnyHandler): () => void {
    this.any.add(handler);
    return () => this.any.delete(handler);
  }
}

function safely(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    // A failing listener must not stop the others or the emitter.
    console.error('event listener failed:', e);
  }
}
