/**
 * Tools as an eval case names them: `slug` (a tool of the case's own bundle) or `bundle/slug`
 * (by the bundle's slug), resolved to a bundle and a key (./score.ts toolKeyOf), and what a
 * case's refs must be to be saved.
 */
import type { Bundle } from '../../../shared/model/bundle';
import type { EvalCaseBody } from '../../../shared/model/evals';
import type { ToolView } from '../../../shared/model/tool';
import { quote, type RuleViolation } from '../../../shared/model/validation';
import type { ToolStore } from '../bundles/tool-store';
import { toolKeyOf } from './score';

export type RefStore = Pick<ToolStore, 'listBundles' | 'toolsOf'>;

/** Bundles by slug (NFC), read once. */
export class BundleIndex {
  private bySlug: Map<string, Bundle[]> | undefined;
  constructor(private readonly store: Pick<ToolStore, 'listBundles'>) {}

  find(slug: string): Bundle | string {
    if (!this.bySlug) {
      this.bySlug = new Map();
      let pageToken: string | undefined;
      do {
        const page = this.store.listBundles({ includeDisabled: true, pageSize: 100, ...(pageToken ? { pageToken } : {}) });
        for (const b of page.items) this.bySlug.set(b.slug.normalize('NFC'), [...(this.bySlug.get(b.slug.normalize('NFC')) ?? []), b]);
        pageToken = page.nextPageToken;
      } while (pageToken);
    }
    const found = this.bySlug.get(slug.normalize('NFC')) ?? [];
    if (found.length === 1) return found[0]!;
    return found.length === 0 ? `no bundle is named ${quote(slug)}` : `${found.length} bundles are named ${quote(slug)}: rename one of them`;
  }
}

export interface ResolvedRef {
  bundle: Bundle;
  slug: string;
  key: string;
  label: string;
}

/** A ref as a bundle and slug, or why it names none. */
export function resolveRef(bundles: BundleIndex, own: Bundle, ref: string): ResolvedRef | string {
  const slash = ref.indexOf('/');
  const bundle = slash < 0 ? own : bundles.find(ref.slice(0, slash));
  if (typeof bundle === 'string') return `${quote(ref)}: ${bundle}`;
  const slug = (slash < 0 ? ref : ref.slice(slash + 1)).normalize('NFC');
  return { bundle, slug, key: toolKeyOf(bundle.id, slug), label: `${bundle.slug}/${slug}` };
}

/** The versions of a tool slug (NFC) in a bundle. */
export function versionsOf(store: Pick<ToolStore, 'toolsOf'>, bundleId: string, slug: string): ToolView[] {
  return store.toolsOf(bundleId).filter((t) => t.slug.normalize('NFC') === slug);
}

/**
 * What a case's canned results must be to be saved in `bundle`: each for a tool that exists, and
 * one per tool (`forecast` and `weather/forecast` in the bundle `weather` are one tool).
 */
export function cannedResultsViolation(c: Pick<EvalCaseBody, 'results'>, bundle: Bundle, store: RefStore): RuleViolation | null {
  const bundles = new BundleIndex(store);
  const seen = new Map<string, string>();
  for (const [i, res] of c.results.entries()) {
    const field = `results.${i}.tool`;
    const r = resolveRef(bundles, bundle, res.tool);
    if (typeof r === 'string') return { field, rule: 'unknown-tool', message: `a canned result names ${r}: correct its tool or remove it` };
    if (!versionsOf(store, r.bundle.id, r.slug).length) return { field, rule: 'unknown-tool', message: `a canned result names ${r.label}, which does not exist: correct its tool or remove it` };
    const twice = seen.get(r.key);
    if (twice !== undefined) return { field, rule: 'duplicate', message: `${quote(twice)} and ${quote(res.tool)} are the same tool (${r.label}), with two canned results: keep one` };
    seen.set(r.key, res.tool);
  }
  return null;
}
