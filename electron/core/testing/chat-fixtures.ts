/**
 * For the chat's and the workflows' tests: local functions and tool bodies for a test bundle,
 * the real routing services (buffers, output router, directive runner) on a temp folder, a
 * server on 127.0.0.1 that never answers (an `@input url:` that runs until it is cancelled),
 * and a listing of the files under a folder (to show that nothing was written).
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { AppError } from '../../../shared/errors';
import { EventBus } from '../events';
import { HttpTransport } from '../invoke/http/transport';
import type { AllowedHosts, LocalFunction } from '../invoke/types';
import { ProblemLog } from '../problems';
import type { Registry } from '../registry/registry';
import { createRoutingServices, type RoutingServices } from '../routing';
import { ToolStore } from '../bundles/tool-store';
import { createWebFunctions } from '../builtin-functions/web';

/** Local functions for a test bundle: echo, text (a long string), fail, hang (until cancelled). */
export const TEST_FUNCTIONS: Record<string, LocalFunction> = {
  'test.echo': async (_ctx, args) => ({ echo: args.text }),
  'test.text': async (_ctx, args) => String(args.text ?? '').repeat(Number(args.times ?? 1)),
  'test.fail': async () => {
    throw new AppError('UNAVAILABLE', 'the service is down');
  },
  'test.hang': (_ctx, _args, signal) =>
    new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
};

export const testToolBody = (slug: string, functionId: string, output: object = {}) => ({
  displayName: `Test ${slug}`,
  description: '',
  tags: [],
  type: 'local' as const,
  argSchema: { type: 'object', properties: { text: { type: 'string' }, times: { type: 'integer' } } },
  outputSchema: output,
  local: { functionId },
  isEnabled: true,
});

export const newBundleId = () => uuidv7();

/** A tool store in `dataDir` with no built-in bundles (an empty resources folder beside it). */
export async function openEmptyToolStore(dataDir: string): Promise<ToolStore> {
  const resourcesDir = path.join(dataDir, 'resources');
  await fs.mkdir(path.join(resourcesDir, 'bundles'), { recursive: true });
  const store = new ToolStore({ dataDir, resourcesDir, problems: new ProblemLog(new EventBus(), () => new Date()) });
  await store.open();
  return store;
}

export interface RoutingOnDiskOptions {
  /** Where the buffers live (`<dataDir>/buffers`). */
  dataDir: string;
  workspace: string;
  /** The tools `@tools` may name. */
  store: ToolStore;
  events?: EventBus;
  /** The hosts an `@input url:` may reach (none by default). */
  allowedHosts?: () => AllowedHosts;
}

/** The routing services the app builds, on a temp folder, with the real HTTP transport. */
export function routingOnDisk(opts: RoutingOnDiskOptions): RoutingServices {
  return createRoutingServices({
    dataDir: opts.dataDir,
    workspaceDir: () => opts.workspace,
    events: opts.events ?? new EventBus(),
    registry: { store: opts.store } as unknown as Registry,
    transport: new HttpTransport(),
    allowedHosts: opts.allowedHosts ?? (() => []),
    fetchUrl: createWebFunctions()['fetch-url'],
    now: () => new Date(),
  });
}

export interface HangingServer {
  /** `127.0.0.1:PORT`, as an allowed-hosts entry. */
  host: string;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** Requests received so far. */
  readonly received: number;
  /** Requests whose client went away (closed the connection) before any answer. */
  readonly abandoned: number;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 that accepts every request and never answers it. */
export async function startHangingServer(): Promise<HangingServer> {
  let received = 0;
  let abandoned = 0;
  const server = http.createServer((req, res) => {
    received++;
    res.on('close', () => {
      if (!res.writableEnded) abandoned++;
    });
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    origin: `http://127.0.0.1:${port}`,
    get received() {
      return received;
    },
    get abandoned() {
      return abandoned;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every file under `root` (relative, '/' separators, sorted); empty when `root` does not exist. */
export async function filesUnder(root: string): Promise<string[]> {
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}
