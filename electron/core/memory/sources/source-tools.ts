/**
 * The `source` and `file` tools (docs/design/memory.md) as built-in local tools of the `memory`
 * bundle: `source` (functionId `memory.source`) is always there; `file` (`memory.file`) is
 * registered by the source manager while a FileSource exists, so without one the tool shows as
 * disabled. Like the other memory tools, the caller is `actorOf(ctx.ownerId)`: the conversation,
 * or a task's agent profile with its AllowedOperations.
 */
import { AppError } from '../../../../shared/errors';
import { FILE_OPS, SOURCE_OPS, type MemoryOperation } from '../../../../shared/model/memory';
import type { LocalFunction } from '../../invoke/types';
import { optString, type Args } from '../../lib/args';
import type { Actor } from '../memory-service';
import { startMemoryCall } from '../tool-call';
import { agentDecision, refusalText } from '../permissions';
import type { SourceManager } from './source-manager';

export const SOURCE_FUNCTION_ID = 'memory.source';

export interface SourceToolDeps {
  sources: () => SourceManager | undefined;
  actorOf: (ownerId: string) => Actor;
}

export function createSourceTools(deps: SourceToolDeps): { source: LocalFunction; file: LocalFunction } {
  const service = { get: () => deps.sources(), unavailable: 'memory sources are not available in this process', actorOf: (ownerId: string) => deps.actorOf(ownerId) };
  return {
    source: async (ctx, rawArgs) => {
      const { args, service: sources, actor } = startMemoryCall(service, 'source', ctx, rawArgs, SOURCE_OPS);
      const op = args.op as (typeof SOURCE_OPS)[number];
      allow(actor, `source.${op}`);
      const id = optString(args, 'source_id', 200);
      switch (op) {
        case 'list': {
          const list = sources.list().map((s) => ({ id: s.id, type: s.type, kind: s.kind, folder: s.folder, state: s.state }));
          return { op, message: list.length ? `${list.length} source${list.length === 1 ? '' : 's'}: ${list.map((s) => `${s.id} (${s.type === 'stream' ? 'stream, folder watcher' : 'block source, FileSource'}; ${s.state})`).join(', ')}` : 'no data sources: the user adds them in Settings → Memory sources', sources: list };
        }
        case 'status': {
          const list = id !== undefined ? [sources.status(id, actor.owner)] : sources.list().map((s) => sources.status(s.id, actor.owner));
          return { op, message: list.map(statusLine).join('\n') || 'no data sources', sources: list };
        }
        case 'pause':
        case 'resume': {
          if (id === undefined) throw new AppError('VALIDATION_FAILED', `source ${op} needs source_id: the stream to ${op} (source list names them)`, { field: 'source_id' });
          const r = op === 'pause' ? await sources.pause(id) : await sources.resume(id);
          return { op, message: r.message, sources: [r.status] };
        }
      }
    },
    file: async (ctx, rawArgs) => {
      const { args, service: sources, actor } = startMemoryCall(service, 'file', ctx, rawArgs, FILE_OPS);
      const op = args.op as (typeof FILE_OPS)[number];
      const target = { path: optString(args, 'path', 4096), label: optString(args, 'label', 200) };
      const fs = await sources.fileSourceFor({ ...target, source_id: optString(args, 'source_id', 200) });
      const signal = ctx.signal;
      switch (op) {
        case 'load':
          return fs.load(actor, target);
        case 'save':
          return fs.save(actor, target, signal);
        case 'create':
          return fs.create(actor, { path: target.path, content: optString(args, 'content') }, signal);
        case 'delete':
          return fs.delete(actor, target, signal);
        case 'append':
          return fs.edit(actor, { op, content: must(args, 'content', 'file append needs content: the text to add') }, target, signal);
        case 'replace':
          return fs.edit(actor, { op, old: must(args, 'old', 'file replace needs old: the exact text to replace (it must occur once)'), new: must(args, 'new', 'file replace needs new: the text to put in its place (empty deletes)') }, target, signal);
      }
    },
  };
}

function allow(actor: Actor, op: MemoryOperation): void {
  const d = agentDecision(actor.grant, op);
  if (d.kind === 'refused') throw new AppError('FORBIDDEN', refusalText(d), { layer: d.layer, operation: op });
}

function must(args: Args, name: string, message: string): string {
  const v = optString(args, name);
  if (v === undefined) throw new AppError('VALIDATION_FAILED', message, { field: name });
  return v;
}

function statusLine(s: ReturnType<SourceManager['status']>): string {
  if (s.type === 'block') {
    const n = s.loaded?.length ?? 0;
    return `${s.id}: FileSource on ${s.folder}, active; rules ${(s.rules ?? []).map((r) => `${r.pattern} → ${r.permission}`).join(', ') || 'none'}; ${n} file${n === 1 ? '' : 's'} loaded here${n ? ` (${s.loaded!.map((l) => l.path).join(', ')})` : ''}`;
  }
  const subs = s.subscribers ?? [];
  return `${s.id}: folder watcher on ${s.folder}, ${s.state}${s.error ? ` (${s.error})` : ''}; ${s.notifications ?? 0} notification${s.notifications === 1 ? '' : 's'} since the app started; ${subs.length ? `writes to ${subs.map((x) => `block '${x.label}'`).join(', ')} here` : 'no block of this memory receives them (block load with this source_id subscribes one)'}`;
}
