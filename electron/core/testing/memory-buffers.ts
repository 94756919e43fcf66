/** For routing tests: buffers in memory, with the write modes of the real store (FileBufferStore). */
import { AppError } from '../../../shared/errors';
import type { BufferInfo, WriteMode } from '../../../shared/model/routing';
import type { BufferStore, BufferWriteResult } from '../routing/types';

export class MemoryBuffers implements Partial<BufferStore> {
  readonly data = new Map<string, string>();
  readonly writes: { ownerId: string; name: string; content: string; mode: WriteMode; source: string }[] = [];

  async write(ownerId: string, name: string, content: string, mode: WriteMode, source: string): Promise<BufferWriteResult> {
    this.writes.push({ ownerId, name, content, mode, source });
    let target = name;
    if (mode === 'new') for (let n = 2; this.data.has(`${ownerId}/${target}`); n++) target = `${name}-${n}`;
    const key = `${ownerId}/${target}`;
    const old = this.data.get(key) ?? '';
    const next = mode === 'append' && old !== '' ? `${old}${old.endsWith('\n') ? '' : '\n'}${content}` : content;
    this.data.set(key, next);
    const info: BufferInfo = { ownerId, name: target, chars: next.length, bytes: next.length, lines: 1, createdAt: '', updatedAt: '', source };
    return { name: target, info };
  }

  async readAll(ownerId: string, name: string): Promise<string> {
    const v = this.data.get(`${ownerId}/${name}`);
    if (v === undefined) throw new AppError('NOT_FOUND', `no buffer '${name}'`);
    return v;
  }
}
