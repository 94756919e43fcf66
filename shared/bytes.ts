/**
 * A size as people read it, in units of 1,024, one decimal past bytes: `short` for the window
 * (`70 B`, `12.3 KiB`, `4.0 MiB`), `words` for text given to a model (`1 byte`, `70 bytes`,
 * `12.3 KB`).
 */
export function formatBytes(bytes: number, style: 'short' | 'words' = 'short'): string {
  if (bytes < 1024) {
    if (style === 'short') return `${bytes.toLocaleString('en')} B`;
    return bytes === 1 ? '1 byte' : `${bytes.toLocaleString('en')} bytes`;
  }
  const units = style === 'short' ? ['KiB', 'MiB', 'GiB'] : ['KB', 'MB', 'GB'];
  let v = bytes / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}
