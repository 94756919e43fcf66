/**
 * Component tests: a component rendered inside the app's providers (React Query and the
 * ApiProvider) with a fake contract client. The fake answers each operation with the handler
 * given for its name (a canned Result, or a function of the input) and records every call;
 * an operation without a handler answers UNAVAILABLE, so a test sees what it forgot to mock
 * instead of waiting on a query that never settles.
 *
 *   const { api, calls } = fakeApi({ 'tools.put': (input) => ({ ok: true, value: saved }) });
 *   renderWithApi(<ToolEditor ... />, api);
 *   expect(callsOf(calls, 'tools.put')[0]).toMatchObject({ version: '2' });
 *
 * Test files that render use `// @vitest-environment happy-dom` at their top.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, type RenderResult } from '@testing-library/react';
import type { ReactElement, ReactNode } from 'react';
import { afterEach } from 'vitest';
import type { ContractClient, OpInput, OpName, OpOutput } from '../../shared/contract';
import type { Result } from '../../shared/errors';
import type { ToolView } from '../../shared/model/tool';
import type { Api } from '../api/client';
import { ApiProvider } from '../api/hooks';

export type OpHandler<N extends OpName> = Result<OpOutput<N>> | ((input: OpInput<N>) => Result<OpOutput<N>> | Promise<Result<OpOutput<N>>>);
export type OpHandlers = { [N in OpName]?: OpHandler<N> };

export interface RecordedCall {
  name: OpName;
  input: unknown;
}

export interface FakeApi {
  api: Api;
  /** Every call made, in order. */
  calls: RecordedCall[];
}

export function fakeApi(handlers: OpHandlers = {}): FakeApi {
  const calls: RecordedCall[] = [];
  const client: ContractClient = {
    async call<N extends OpName>(name: N, input: OpInput<N>): Promise<Result<OpOutput<N>>> {
      calls.push({ name, input });
      const h = handlers[name] as OpHandler<N> | undefined;
      if (h === undefined) return { ok: false, error: { code: 'UNAVAILABLE', message: `No answer for ${name} in this test.` } };
      return typeof h === 'function' ? h(input) : h;
    },
    on: () => () => undefined,
  };
  return { api: { client, kind: 'bridge', onState: () => () => undefined, state: () => 'open' }, calls };
}

/** The inputs of the calls made to one operation, in order. */
export function callsOf<N extends OpName>(calls: readonly RecordedCall[], name: N): OpInput<N>[] {
  return calls.filter((c) => c.name === name).map((c) => c.input as OpInput<N>);
}

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

/** A saved local tool, as 'tools.get' would serve it; `over` replaces any field. */
export function sampleTool(over: Partial<ToolView> = {}): ToolView {
  return {
    id: '0190a000-0000-7000-8000-000000000001',
    bundleId: '0190a000-0000-7000-8000-0000000000b1',
    slug: 'weather',
    version: '1',
    displayName: 'Weather',
    description: 'The weather in a city.',
    tags: ['demo'],
    type: 'local',
    local: { functionId: 'demo.weather' },
    argSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    outputSchema: {},
    isEnabled: true,
    isBuiltIn: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    modifiedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

/** A client of its own per test: no retries (an error shows at once), nothing kept between tests. */
export function testQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: Infinity }, mutations: { retry: false } } });
}

export function Providers({ api, client, children }: { api: Api; client: QueryClient; children: ReactNode }) {
  return (
    <QueryClientProvider client={client}>
      <ApiProvider api={api}>{children}</ApiProvider>
    </QueryClientProvider>
  );
}

export function renderWithApi(ui: ReactElement, api: Api, client: QueryClient = testQueryClient()): RenderResult & { queryClient: QueryClient } {
  const result = render(ui, { wrapper: ({ children }) => <Providers api={api} client={client}>{children}</Providers> });
  return { ...result, queryClient: client };
}

// Testing Library unmounts after each test only when the runner has globals; vitest here has none.
afterEach(() => cleanup());

// happy-dom has no HTMLSelectElement.size (0 in a browser unless set): react-hook-form reads it
// to tell a select's default option from one a person chose, and would take the first option.
if (typeof HTMLSelectElement !== 'undefined' && !('size' in HTMLSelectElement.prototype)) {
  Object.defineProperty(HTMLSelectElement.prototype, 'size', {
    configurable: true,
    get(this: HTMLSelectElement) {
      return Number(this.getAttribute('size') ?? 0);
    },
    set(this: HTMLSelectElement, n: number) {
      this.setAttribute('size', String(n));
    },
  });
}
