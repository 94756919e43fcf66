// @vitest-environment happy-dom
import { act, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { fakeApi, Providers, testQueryClient } from '../testing/render';
import type { Api } from './client';
import { useConnectionState } from './hooks';
import type { ConnectionState } from './ws-client';

/** An API whose connection state the test sets, telling its listeners as the socket does. */
function socketApi(initial: ConnectionState) {
  let state = initial;
  const listeners = new Set<(s: ConnectionState) => void>();
  const api: Api = {
    ...fakeApi().api,
    kind: 'websocket',
    onState: (cb) => {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    state: () => state,
  };
  const set = (s: ConnectionState) => {
    state = s;
    for (const cb of listeners) cb(s);
  };
  return { api, set, listeners };
}

function render(api: Api) {
  const client = testQueryClient();
  return renderHook(() => useConnectionState(), { wrapper: ({ children }: { children: ReactNode }) => <Providers api={api} client={client}>{children}</Providers> });
}

describe('useConnectionState', () => {
  it('follows the socket, and stops listening when unmounted', () => {
    const socket = socketApi('connecting');
    const { result, unmount } = render(socket.api);
    expect(result.current).toBe('connecting');
    act(() => socket.set('open'));
    expect(result.current).toBe('open');
    act(() => socket.set('closed'));
    expect(result.current).toBe('closed');
    unmount();
    // The provider's own listener (a reconnect reads everything again) goes with it too.
    expect(socket.listeners.size).toBe(0);
  });
});
