/**
 * The output router (docs/design/routing.md): writes a tool's result or an `@input`'s content to
 * its destination and answers the manifest that takes its place.
 *
 * - inline: nothing happens; null (the caller keeps the content).
 * - discard: nothing is written; a manifest with target discard.
 * - variable:NAME: BufferStore.write for the request's owner.
 * - file:PATH: placeholders expanded, then writeWorkspaceFile (confined to the workspace).
 * An aborted `signal` (a cancelled step) makes route throw CANCELLED before it writes.
 * The write mode defaults to append. The manifest names the destination as resolved: the
 * numbered name for write-mode=new, the expanded path for a file.
 */
import { AppError } from '../../../shared/errors';
import type { Manifest, WriteMode } from '../../../shared/model/routing';
import { resolveFilePath } from './destination';
import { writeWorkspaceFile } from './file-writer';
import { ROUTE_MAX_PAYLOAD_CHARS } from './limits';
import { buildManifest, formatCount } from './manifest';
import type { BufferStore, OutputRouter, RouteRequest } from './types';

export type WriteFile = (workspaceDir: string, relPath: string, content: string, mode: WriteMode) => Promise<{ path: string; chars: number }>;

export interface RouterDeps {
  buffers: BufferStore;
  workspaceDir: () => string;
  now: () => Date;
  /** Injectable for tests; default writeWorkspaceFile. */
  writeFile?: WriteFile;
  /** Default ROUTE_MAX_PAYLOAD_CHARS. */
  maxPayloadChars?: number;
  /** Told of each workspace file a route wrote (relative path, and the owner): documents record it. */
  wrote?: (relPath: string, by: string | undefined) => void | Promise<void>;
}

export class WorkspaceOutputRouter implements OutputRouter {
  private readonly writeFile: WriteFile;
  private readonly maxChars: number;

  constructor(private readonly deps: RouterDeps) {
    this.writeFile = deps.writeFile ?? writeWorkspaceFile;
    this.maxChars = deps.maxPayloadChars ?? ROUTE_MAX_PAYLOAD_CHARS;
  }

  async route(req: RouteRequest): Promise<Manifest | null> {
    const dest = req.destination;
    if (dest.kind === 'inline') return null;
    if (typeof req.content !== 'string') throw new AppError('VALIDATION_FAILED', 'routed content must be text');
    if (req.content.length > this.maxChars) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `${req.label.name} produced ${formatCount(req.content.length)} characters: routing takes at most ${formatCount(this.maxChars)}`,
        { chars: req.content.length, limit: this.maxChars },
      );
    }
    const writeMode = req.writeMode ?? 'append';
    const common = {
      kind: req.label.kind,
      name: req.label.name,
      writeMode,
      count: req.label.count ?? 1,
      totalChars: req.content.length,
      paths: req.label.paths ?? [],
    };
    // Checked last, just before the write: a cancelled step writes nothing.
    if (req.signal?.aborted) throw new AppError('CANCELLED', 'cancelled');
    switch (dest.kind) {
      case 'discard':
        return buildManifest({ ...common, destination: 'discard', target: { kind: 'discard' } });
      case 'variable': {
        if (!req.ownerId) throw new AppError('VALIDATION_FAILED', `variable:${dest.name} needs a conversation or a workflow run to hold the buffer`);
        const r = await this.deps.buffers.write(req.ownerId, dest.name, req.content, writeMode, req.source);
        return buildManifest({ ...common, destination: `variable:${r.name}`, target: { kind: 'variable', ownerId: req.ownerId, name: r.name } });
      }
      case 'file': {
        const rel = resolveFilePath(dest.path, this.deps.now());
        const r = await this.writeFile(this.deps.workspaceDir(), rel, req.content, writeMode);
        await this.deps.wrote?.(r.path, req.ownerId);
        return buildManifest({ ...common, destination: `file:${r.path}`, target: { kind: 'file', path: r.path } });
      }
    }
  }
}
