/**
 * UUIDv7 ids (RFC 9562): 48 bits of milliseconds, then random bits, so ids sort by time.
 * Random bytes come from a pool refilled in one call, which keeps the id off the hot path
 * of an invocation.
 */
import { randomFillSync } from 'node:crypto';

const POOL_SIZE = 16 * 256;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function uuidv7(now = Date.now()): string {
  if (offset + 10 > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const r = offset;
  offset += 10;
  const ms = Math.floor(now);
  const hi = Math.floor(ms / 0x10000);
  const lo = ms % 0x10000;
  return (
    HEX[(hi >>> 24) & 0xff]! + HEX[(hi >>> 16) & 0xff]! + HEX[(hi >>> 8) & 0xff]! + HEX[hi & 0xff]! +
    '-' + HEX[(lo >>> 8) & 0xff]! + HEX[lo & 0xff]! +
    '-' + HEX[0x70 | (pool[r]! & 0x0f)]! + HEX[pool[r + 1]!]! +
    '-' + HEX[0x80 | (pool[r + 2]! & 0x3f)]! + HEX[pool[r + 3]!]! +
    '-' + HEX[pool[r + 4]!]! + HEX[pool[r + 5]!]! + HEX[pool[r + 6]!]! + HEX[pool[r + 7]!]! + HEX[pool[r + 8]!]! + HEX[pool[r + 9]!]!
  );
}
