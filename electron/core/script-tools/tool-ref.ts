/**
 * The tool a script names in ctx.call: 'slug' (a tool of the script's own bundle),
 * 'bundle/slug' (a bundle by slug or id), either with '@version'; or {bundleId, slug, version}.
 * Without a version: the newest switched-on version, else the newest (the CLI's rule).
 */
import { AppError } from '../../../shared/errors';
import type { Bundle } from '../../../shared/model/bundle';
import type { ToolView } from '../../../shared/model/tool';
import { compareVersions } from '../../../shared/versions';
import type { ToolStore } from '../bundles/tool-store';

const nfc = (s: string) => s.normalize('NFC');

function refused(message: string): AppError {
  return new AppError('NOT_FOUND', `ctx.call: ${message}`);
}

function bundlesNamed(store: ToolStore, name: string): Bundle[] {
  const byId = store.bundleById(name);
  if (byId) return [byId];
  const out: Bundle[] = [];
  let pageToken: string | undefined;
  do {
    const page = store.listBundles({ includeDisabled: true, pageSize: 100, ...(pageToken ? { pageToken } : {}) });
    out.push(...page.items.filter((b) => nfc(b.slug) === nfc(name)));
    pageToken = page.nextPageToken;
  } while (pageToken);
  return out;
}

export function resolveToolRef(store: ToolStore, ref: unknown, ownBundleId: string): ToolView {
  if (ref && typeof ref === 'object') {
    const r = ref as { bundleId?: unknown; slug?: unknown; version?: unknown };
    if (typeof r.bundleId !== 'string' || typeof r.slug !== 'string' || typeof r.version !== 'string') {
      throw new AppError('VALIDATION_FAILED', 'ctx.call: a tool given as an object needs bundleId, slug and version (strings)');
    }
    return store.getTool(r.bundleId, r.slug, r.version);
  }
  if (typeof ref !== 'string') throw new AppError('VALIDATION_FAILED', "ctx.call: name the tool as 'slug', 'bundle/slug' or 'bundle/slug@version'");
  const m = /^(?:([^/@\s]+)\/)?([^/@\s]+)(?:@([^/@\s]+))?$/u.exec(ref.trim());
  if (!m) throw new AppError('VALIDATION_FAILED', `ctx.call: '${ref.slice(0, 100)}' is not a tool name: write 'slug', 'bundle/slug' or 'bundle/slug@version'`);
  const [, bundleName, slug, version] = m as unknown as [string, string | undefined, string, string | undefined];
  let bundleId = ownBundleId;
  if (bundleName !== undefined) {
    const found = bundlesNamed(store, bundleName).filter((b) => b.softDeletedAt === undefined);
    if (found.length === 0) throw refused(`there is no bundle '${bundleName}'`);
    if (found.length > 1) throw refused(`${found.length} bundles are named '${bundleName}': name the tool as {bundleId, slug, version}`);
    bundleId = found[0]!.id;
  }
  const versions = store.toolsOf(bundleId).filter((t) => nfc(t.slug) === nfc(slug));
  if (versions.length === 0) throw refused(`there is no tool '${slug}'${bundleName ? ` in bundle '${bundleName}'` : " in the script's own bundle (name another bundle's as 'bundle/slug')"}`);
  if (version !== undefined) {
    const exact = versions.find((t) => t.version === nfc(version));
    if (!exact) throw refused(`'${slug}' has no version '${version}'`);
    return exact;
  }
  versions.sort((a, b) => compareVersions(b.version, a.version) || b.modifiedAt.localeCompare(a.modifiedAt));
  return versions.find((t) => t.isEnabled) ?? versions[0]!;
}
