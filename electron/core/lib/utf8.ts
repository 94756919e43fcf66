/** UTF-8 boundaries, for cutting byte buffers without splitting a character. */

/** The largest index <= end where `buf` can be cut without splitting a UTF-8 character. */
export function utf8CutBefore(buf: Uint8Array, end: number): number {
  // Step back over at most 3 continuation bytes to the lead byte; keep it only if its sequence is complete.
  let i = end;
  let back = 0;
  while (i > 0 && back < 4 && (buf[i - 1]! & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i === 0) return end;
  const lead = buf[i - 1]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need === back + 1 || need === 1 ? end : i - 1;
}

/** How many continuation bytes open `buf` (an offset inside a character): at most 3. */
export function utf8SkipContinuation(buf: Uint8Array): number {
  let i = 0;
  while (i < buf.length && i < 3 && (buf[i]! & 0xc0) === 0x80) i++;
  return i;
}
