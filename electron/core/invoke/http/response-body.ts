/**
 * Reading a response body under the byte limits: counting bytes on the wire and after each
 * content encoding is undone (gzip, deflate, br), pulling from the socket only as fast as the
 * decoded output is read, so a decompression bomb stops at the limit.
 */
import { Readable, pipeline, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { AppError } from '../../../../shared/errors';
import { hostLabel } from './hosts';

export const KNOWN_ENCODINGS: ReadonlySet<string> = new Set(['gzip', 'x-gzip', 'deflate', 'br']);

export function contentEncodings(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s && s !== 'identity');
}

/** Yields the chunks of `source`, throwing `over()` once more than `limit` bytes went by. */
export async function* countBytes(source: AsyncIterable<Buffer | Uint8Array>, limit: number, over: () => AppError, onChunk?: () => void): AsyncGenerator<Buffer> {
  let n = 0;
  for await (const chunk of source) {
    n += chunk.length;
    if (n > limit) throw over();
    onChunk?.();
    yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }
}

/** Decodes one content encoding, pulling from `source` only as fast as the output is read. */
export async function* decoded(source: AsyncIterable<Buffer>, encoding: string, url: URL): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  const flush = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  let z: Transform;
  if (encoding === 'br') z = zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  else if (encoding === 'deflate') z = (first.value[0]! & 0x0f) === 0x08 ? zlib.createInflate(flush) : zlib.createInflateRaw(flush);
  else z = zlib.createGunzip(flush);
  const input = Readable.from(
    (async function* () {
      try {
        yield first.value;
        for (;;) {
          const r = await it.next();
          if (r.done) return;
          yield r.value;
        }
      } finally {
        await it.return?.();
      }
    })(),
  );
  pipeline(input, z, () => undefined);
  try {
    for await (const chunk of z) yield chunk as Buffer;
  } catch (e) {
    if (e instanceof AppError) throw e;
    // Only the decoder's own errors are about the bytes; a reset or a timeout of the socket under it is the network's (retried as such).
    if (!isDecodeError(e)) throw e;
    // The same bytes would fail the same way: not worth a retry.
    throw new AppError('UNAVAILABLE', `the response from '${hostLabel(url)}' could not be decompressed (${encoding}): ${(e as Error).message}`, { encoding, permanent: true });
  } finally {
    z.destroy();
    input.destroy();
  }
}

export type Stage = 'plain' | 'compressed' | 'decompressed';

export function tooLarge(url: URL, limit: number, stage: Stage, declared?: number): AppError {
  const where = hostLabel(url);
  const how = stage === 'compressed' ? ' even compressed' : stage === 'decompressed' ? ' once decompressed' : '';
  const message =
    declared !== undefined
      ? `the response from '${where}' is ${declared} bytes${stage === 'compressed' ? ' compressed' : ''} (Content-Length), over this tool's limit of ${limit} bytes (limits.maxResponseBytes); it was not read`
      : `the response from '${where}' is over this tool's limit of ${limit} bytes${how} (limits.maxResponseBytes); reading stopped there (raise the limit if you need all of it)`;
  return new AppError('PAYLOAD_TOO_LARGE', message, { limit, stage, ...(declared !== undefined ? { declared } : {}) });
}

/** zlib's and brotli's errors about the data (Z_DATA_ERROR, Z_BUF_ERROR, ERR_BROTLI_…, ERR__ERROR_FORMAT_…), not the stream's. */
function isDecodeError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(?:Z_|ERR_BROTLI|ERR_ZLIB|ERR__ERROR_FORMAT)/.test(code);
}
