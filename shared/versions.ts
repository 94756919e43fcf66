/**
 * The order of a tool's versions, where one must be picked (`@tools slug`, the model's tool
 * list, the tools served over MCP, the palette's "newest" mark).
 *
 * Versions are labels the tool's author chooses, so the order is SemVer's where a label looks
 * like SemVer and still sensible where it does not:
 * - a build suffix (`+…`) is ignored;
 * - the release part (before the first `-`) is compared dot by dot, numbers as numbers
 *   (`1.10.0` is above `1.9.0`), other text by Unicode code point;
 * - a pre-release (`1.0.0-beta`, `2.0.0-rc1`) is below its release (`1.0.0`, `2.0.0`), and two
 *   pre-releases of one release compare identifier by identifier: numbers below text, numbers
 *   as numbers, a shorter list below a longer one that starts the same (`alpha` < `alpha.1`).
 * Labels of one version (`1.0` and `1.0.0`, or two that differ only in their build suffix)
 * compare 0: the caller breaks the tie (the most recently changed one wins).
 */

interface Parsed {
  release: string[];
  pre: string[] | null;
}

function parse(version: string): Parsed {
  const v = version.trim().replace(/^v(?=\d)/i, '');
  const plus = v.indexOf('+');
  const core = plus >= 0 ? v.slice(0, plus) : v;
  const dash = core.indexOf('-');
  const release = (dash >= 0 ? core.slice(0, dash) : core).split('.');
  const pre = dash >= 0 ? core.slice(dash + 1).split('.') : null;
  return { release, pre };
}

const NUMERIC = /^\d+$/;

/** Compares two identifiers: numbers as numbers (below any text), text by code point. */
function compareIdentifiers(a: string, b: string): number {
  const an = NUMERIC.test(a);
  const bn = NUMERIC.test(b);
  if (an && bn) {
    // Numbers of any length, without losing precision: strip leading zeros, then length, then text.
    const x = a.replace(/^0+(?=\d)/, '');
    const y = b.replace(/^0+(?=\d)/, '');
    return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
  }
  if (an) return -1;
  if (bn) return 1;
  // Within a release part, `10rc` vs `9rc` still reads numbers first (numeric collation).
  return a.localeCompare(b, 'en', { numeric: true }) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Negative when `a` is the lower version, positive when it is the higher, 0 when they are the same label. */
export function compareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const pa = parse(a);
  const pb = parse(b);
  const n = Math.max(pa.release.length, pb.release.length);
  for (let i = 0; i < n; i++) {
    // A missing part counts as 0: `1.0` and `1.0.0` name the same release.
    const c = compareIdentifiers(pa.release[i] ?? '0', pb.release[i] ?? '0');
    if (c !== 0) return c;
  }
  if (pa.pre === null || pb.pre === null) return pa.pre === pb.pre ? 0 : pa.pre === null ? 1 : -1;
  const m = Math.max(pa.pre.length, pb.pre.length);
  for (let i = 0; i < m; i++) {
    const x = pa.pre[i];
    const y = pb.pre[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const c = compareIdentifiers(x, y);
    if (c !== 0) return c;
  }
  return 0;
}
