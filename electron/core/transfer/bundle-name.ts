/**
 * The slug and display name an imported bundle gets beside the bundles already there: its own,
 * unless a bundle (enabled or not, soft-deleted ones aside) has the same slug or the same
 * display name. Then the part that clashes gets the first free number n ≥ 2: slug `weather` →
 * `weather-2`, display name "Weather" → "Weather (2)" (both with the same n). Slugs compare as
 * `@tools bundle/slug` resolves them (NFC, case-sensitive); display names compare trimmed and
 * without case, as a person reading the palette would.
 */
import { LABEL_MAX_RUNES, nfc } from '../../../shared/model/validation';

export interface BundleName {
  slug: string;
  displayName: string;
}

/** DisplayNameSchema's bound (UTF-16 units). */
const DISPLAY_NAME_MAX = 128;

const nameKey = (s: string) => nfc(s).trim().toLowerCase();

/** The first `max` code points of `s`. */
function runes(s: string, max: number): string {
  return [...s].slice(0, max).join('');
}

/** At most `max` UTF-16 units of `s`, never splitting a surrogate pair. */
function units(s: string, max: number): string {
  let out = '';
  for (const r of s) {
    if (out.length + r.length > max) break;
    out += r;
  }
  return out;
}

export function numberedSlug(slug: string, n: number): string {
  const suffix = `-${n}`;
  return `${runes(nfc(slug), LABEL_MAX_RUNES - suffix.length)}${suffix}`;
}

export function numberedName(displayName: string, n: number): string {
  const suffix = ` (${n})`;
  return `${units(displayName, DISPLAY_NAME_MAX - suffix.length).trimEnd()}${suffix}`;
}

/** `wanted`, or the renamed slug and name when either clashes with one of `taken`. */
export function freeBundleName(wanted: BundleName, taken: BundleName[]): BundleName {
  const slugs = new Set(taken.map((b) => nfc(b.slug)));
  const names = new Set(taken.map((b) => nameKey(b.displayName)));
  const slugClash = slugs.has(nfc(wanted.slug));
  const nameClash = names.has(nameKey(wanted.displayName));
  if (!slugClash && !nameClash) return wanted;
  // Each bundle taken rules out at most two numbers, so this ends by 2 + 2 × taken.length.
  for (let n = 2; ; n++) {
    const slug = slugClash ? numberedSlug(wanted.slug, n) : wanted.slug;
    const displayName = nameClash ? numberedName(wanted.displayName, n) : wanted.displayName;
    if (!slugs.has(nfc(slug)) && !names.has(nameKey(displayName))) return { slug, displayName };
  }
}
