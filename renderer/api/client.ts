/** Picks the transport: the preload bridge in Electron, the WebSocket in a browser. */
import type { ContractClient, OpInput, OpName, OpOutput } from '../../shared/contract';
import type { ErrorInfo } from '../../shared/errors';
import { WebSocketClient, type ConnectionState } from './ws-client';

export interface Api {
  client: ContractClient;
  kind: 'bridge' | 'websocket';
  onState(cb: (s: ConnectionState) => void): () => void;
  state(): ConnectionState;
}

export function createApi(): Api {
  if (window.toolsmith) {
    const client = window.toolsmith;
    return { client, kind: 'bridge', onState: () => () => undefined, state: () => 'open' };
  }
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const ws = new WebSocketClient(`${scheme}://${location.host}/ws`);
  return { client: ws, kind: 'websocket', onState: (cb) => ws.onState(cb), state: () => ws.state };
}

/** A failed call, thrown so React Query sees it as an error; keeps the contract's envelope. */
export class ContractError extends Error {
  constructor(readonly info: ErrorInfo) {
    super(info.message);
    this.name = 'ContractError';
  }
}

export async function callOrThrow<N extends OpName>(client: ContractClient, name: N, input: OpInput<N>): Promise<OpOutput<N>> {
  const r = await client.call(name, input);
  if (!r.ok) throw new ContractError(r.error);
  return r.value;
}
