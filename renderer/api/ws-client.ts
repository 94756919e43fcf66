/**
 * The contract over the headless host's WebSocket. Calls made while disconnected wait for
 * the connection; a dropped connection fails the calls in flight with UNAVAILABLE and
 * reconnects with back-off.
 */
import { isEventName, type ContractClient, type EventName } from '../../shared/contract';
import { fail, type Result } from '../../shared/errors';

export type ConnectionState = 'connecting' | 'open' | 'closed' | 'signed-out';

interface Pending {
  resolve: (r: Result<unknown>) => void;
}

export class WebSocketClient implements ContractClient {
  private ws: WebSocket | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly queue: string[] = [];
  private readonly listeners = new Map<EventName, Set<(p: unknown) => void>>();
  private readonly stateListeners = new Set<(s: ConnectionState) => void>();
  private attempts = 0;
  state: ConnectionState = 'connecting';

  constructor(private readonly url: string) {
    this.connect();
  }

  private connect(): void {
    this.setState('connecting');
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.attempts = 0;
      this.setState('open');
      for (const frame of this.queue.splice(0)) ws.send(frame);
    };
    ws.onmessage = (e) => this.onFrame(String(e.data));
    ws.onclose = () => {
      for (const [id, p] of this.pending) {
        p.resolve(fail('UNAVAILABLE', 'the connection to Toolsmith was lost'));
        this.pending.delete(id);
      }
      this.setState('closed');
      void this.reconnectUnlessSignedOut();
    };
  }

  /** A refused upgrade looks like any other drop; ask over HTTP whether the session is gone. */
  private async reconnectUnlessSignedOut(): Promise<void> {
    try {
      const r = await fetch('/rpc/app.ping', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
      if (r.status === 401) {
        this.setState('signed-out');
        return;
      }
    } catch {
      // The host is down: keep trying.
    }
    const delay = Math.min(10_000, 250 * 2 ** this.attempts++) * (0.5 + Math.random() / 2);
    setTimeout(() => this.connect(), delay);
  }

  private onFrame(text: string): void {
    let msg: { id?: number | null; result?: Result<unknown>; event?: string; payload?: unknown };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      return;
    }
    if (typeof msg.id === 'number' && msg.result) {
      this.pending.get(msg.id)?.resolve(msg.result);
      this.pending.delete(msg.id);
    } else if (isEventName(msg.event)) {
      for (const cb of this.listeners.get(msg.event) ?? []) cb(msg.payload);
    }
  }

  call: ContractClient['call'] = (name, input) => {
    const id = this.nextId++;
    // The id goes first: the host reads it even from a frame it refuses to parse.
    const frame = `{"id":${id},"name":${JSON.stringify(name)},"input":${JSON.stringify(input ?? {})}}`;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve: resolve as Pending['resolve'] });
      if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(frame);
      else this.queue.push(frame);
    });
  };

  on: ContractClient['on'] = (name, handler) => {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    const cb = handler as (p: unknown) => void;
    set.add(cb);
    return () => set.delete(cb);
  };

  onState(cb: (s: ConnectionState) => void): () => void {
    this.stateListeners.add(cb);
    return () => this.stateListeners.delete(cb);
  }

  private setState(s: ConnectionState): void {
    this.state = s;
    for (const cb of this.stateListeners) cb(s);
  }
}
