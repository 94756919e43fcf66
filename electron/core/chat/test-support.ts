/**
 * For the chat's and the workflows' unit tests: small in-memory stand-ins for the routing
 * services (buffers, router, directive runner) that record what they were asked. The
 * integration tests run the real ones through createCore.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { ParsedText } from '../../../shared/directives/types';
import { AppError } from '../../../shared/errors';
import type { DirectiveOutcome } from '../../../shared/model/conversation';
import { formatDestination, type Destination, type Manifest, type WriteMode } from '../../../shared/model/routing';
import type { LocalFunction } from '../invoke/types';
import type { RoutingServices } from '../routing';
import type { BufferStore, DirectiveRunContext, DirectiveRunner, OutputRouter, RouteRequest } from '../routing/types';

export interface FakeRouting extends RoutingServices {
  /** ownerId -> name -> content */
  data: Map<string, Map<string, string>>;
  routed: RouteRequest[];
  /** Runs that did work, and runs that only checked (their signal already aborted). */
  runs: { parsed: ParsedText; ctx: DirectiveRunContext }[];
  checks: { parsed: ParsedText; ctx: DirectiveRunContext }[];
  deletedOwners: string[];
}

/**
 * `@input file:P` reads `<workspace>/P`; `@input variable:N` reads a buffer; `@input wait:x`
 * waits until the run is aborted; a tool named `nosuchtool` is refused as the real runner
 * refuses an unknown tool.
 */
export function fakeRouting(workspaceDir: string): FakeRouting {
  const data = new Map<string, Map<string, string>>();
  const routed: RouteRequest[] = [];
  const runs: FakeRouting['runs'] = [];
  const checks: FakeRouting['checks'] = [];
  const deletedOwners: string[] = [];
  const buffersOf = (owner: string) => data.get(owner) ?? data.set(owner, new Map()).get(owner)!;

  const write = async (ownerId: string, d: Destination, content: string, mode: WriteMode = 'append') => {
    if (d.kind === 'variable') {
      const b = buffersOf(ownerId);
      const old = mode === 'replace' ? '' : (b.get(d.name) ?? '');
      b.set(d.name, old && !old.endsWith('\n') ? `${old}\n${content}` : old + content);
    } else if (d.kind === 'file') {
      const file = path.join(workspaceDir, d.path);
      await fs.mkdir(path.dirname(file), { recursive: true });
      if (mode === 'replace') await fs.writeFile(file, content);
      else await fs.appendFile(file, content);
    }
  };
  const manifestOf = (req: RouteRequest): Manifest => {
    const dest = formatDestination(req.destination);
    const kind = req.label.kind;
    const text =
      kind === 'tool'
        ? `[tool routed] ${req.label.name} -> ${dest} (total ${req.content.length} chars)`
        : `[input routed] 1 file -> ${dest} (total ${req.content.length} chars)`;
    const target: Manifest['target'] =
      req.destination.kind === 'variable'
        ? { kind: 'variable', ownerId: req.ownerId, name: req.destination.name }
        : req.destination.kind === 'file'
          ? { kind: 'file', path: req.destination.path }
          : { kind: 'discard' };
    return { kind, name: req.label.name, destination: dest, target, writeMode: req.writeMode ?? 'append', count: 1, totalChars: req.content.length, paths: [], text };
  };

  const router: OutputRouter = {
    async route(req) {
      routed.push(req);
      if (req.destination.kind === 'inline') return null;
      if (req.destination.kind === 'file' && req.destination.path.startsWith('forbidden/')) {
        throw new AppError('FORBIDDEN', `'${req.destination.path}' may not be written`);
      }
      await write(req.ownerId, req.destination, req.content, req.writeMode);
      return manifestOf(req);
    },
  };

  const directives: DirectiveRunner = {
    check(parsed) {
      checks.push({ parsed, ctx: { ownerId: 'check' } });
      return parsed.tools.some((t) => t.name === 'nosuchtool') ? [{ start: 0, end: 1, line: 1, column: 1, message: "unknown tool 'nosuchtool'" }] : [];
    },
    async run(parsed, ctx) {
      runs.push({ parsed, ctx });
      const unknown = parsed.tools.find((t) => t.name === 'nosuchtool');
      if (unknown) {
        throw new AppError('VALIDATION_FAILED', "unknown tool 'nosuchtool'", { errors: [{ start: 0, end: 1, line: 1, column: 1, message: "unknown tool 'nosuchtool'" }] });
      }
      const outcomes: DirectiveOutcome[] = [];
      let prompt = parsed.prompt;
      for (const d of parsed.directives) {
        if (d.kind !== 'input') continue;
        if (ctx.signal?.aborted) throw new AppError('CANCELLED', 'cancelled');
        let content: string;
        try {
          if (d.source.scheme === 'wait') {
            await new Promise((_, reject) => {
              if (ctx.signal?.aborted) reject(new AppError('CANCELLED', 'cancelled'));
              ctx.signal?.addEventListener('abort', () => reject(new AppError('CANCELLED', 'cancelled')), { once: true });
            });
          }
          if (d.source.scheme === 'file') content = await fs.readFile(path.join(workspaceDir, d.source.value), 'utf8');
          else if (d.source.scheme === 'variable') {
            const v = data.get(ctx.ownerId)?.get(d.source.value);
            if (v === undefined) throw new AppError('NOT_FOUND', `no buffer '${d.source.value}'`);
            content = v;
          } else throw new AppError('VALIDATION_FAILED', `unknown source '${d.source.scheme}:'`);
        } catch (e) {
          if (e instanceof AppError && e.code === 'CANCELLED') throw e;
          const err = e instanceof AppError ? e.toInfo() : { code: 'NOT_FOUND' as const, message: (e as Error).message };
          outcomes.push({ directive: d.raw, error: err });
          continue;
        }
        const destination = d.params.output;
        if (destination && destination.kind !== 'inline') {
          const manifest = await router.route({
            ownerId: ctx.ownerId,
            content,
            destination,
            writeMode: d.params.writeMode,
            label: { kind: 'input', name: `${d.source.scheme}:${d.source.value}` },
            source: `input:${d.source.scheme}:${d.source.value}`,
          });
          outcomes.push({ directive: d.raw, manifest: manifest! });
          prompt += `\n${manifest!.text}`;
        } else {
          outcomes.push({ directive: d.raw, inlineText: content });
          prompt += `\n${content}`;
        }
      }
      return { outcomes, tools: [], modelNone: parsed.modelNone, ...(parsed.model ? { model: parsed.model } : {}), prompt };
    },
  };

  const notHere = (): never => {
    throw new AppError('NOT_IMPLEMENTED', 'not in the fake');
  };
  const buffers: BufferStore = {
    list: notHere,
    info: notHere,
    write: notHere,
    read: notHere,
    readAll: async (owner, name) => data.get(owner)?.get(name) ?? notHere(),
    search: notHere,
    export: notHere,
    delete: notHere,
    deleteOwner: async (owner) => {
      deletedOwners.push(owner);
      data.delete(owner);
    },
  };
  return { buffers, router, directives, data, routed, runs, checks, deletedOwners };
}

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
