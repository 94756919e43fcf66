/** `toolsmith tools …` and `toolsmith bundles …`: reading the registry, switching bundles, ZIP export and import. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../core/lib/atomic-write';
import { MAX_IMPORT_ZIP_BYTES } from '../../../shared/model/transfer';
import type { Bundle } from '../../../shared/model/bundle';
import type { ToolView } from '../../../shared/model/tool';
import { approvalOf, type ApprovalInfo } from '../../../shared/model/tool-approval';
import { CliError, firstLine, out, outJson, table, toolRef, usageError, withCore, type CommonOptions, type Session } from './session';

export interface ToolsListOptions extends CommonOptions {
  bundle?: string;
  tag?: string[];
  all?: boolean;
}

/** Bundle slugs by id, for naming tools. */
async function bundleSlugs(s: Session): Promise<Map<string, string>> {
  return new Map((await s.allBundles()).map((b) => [b.id, b.slug]));
}

function toolRow(slugs: Map<string, string>, t: ToolView): string[] {
  return [toolRef(slugs.get(t.bundleId) ?? t.bundleId, t), t.type, t.isEnabled ? 'on' : 'off', firstLine(t.description, 60)];
}

export async function toolsList(o: ToolsListOptions): Promise<void> {
  await withCore(o, async (s) => {
    const bundle = o.bundle ? await s.bundle(o.bundle) : undefined;
    const slugs = await bundleSlugs(s);
    const name = (t: ToolView) => toolRef(slugs.get(t.bundleId) ?? t.bundleId, t);
    const tools = (await s.allTools({ includeDisabled: o.all ?? false, ...(bundle ? { bundleIds: [bundle.id] } : {}), ...(o.tag?.length ? { tags: o.tag } : {}) })).sort(
      (a, b) => name(a).localeCompare(name(b), 'en', { numeric: true }),
    );
    if (o.json) return outJson(tools);
    if (tools.length === 0) return out(o.all ? 'No tools.' : 'No tools switched on (--all lists the switched-off ones too).');
    out(table([['TOOL', 'TYPE', 'STATE', 'DESCRIPTION'], ...tools.map((t) => toolRow(slugs, t))]));
  });
}

export interface ToolsSearchOptions extends CommonOptions {
  limit?: string;
  all?: boolean;
}

export async function toolsSearch(query: string, o: ToolsSearchOptions): Promise<void> {
  const limit = o.limit === undefined ? 20 : Number(o.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw usageError(`--limit must be a whole number from 1 to 100: got '${o.limit}'`);
  await withCore(o, async (s) => {
    const found = await s.call('tools.search', { q: query, pageSize: limit, includeDisabled: o.all ?? false });
    if (o.json) return outJson(found.items);
    if (found.items.length === 0) return out(`No tool matches '${query}'.`);
    const slugs = await bundleSlugs(s);
    out(table([['TOOL', 'TYPE', 'MATCH', 'DESCRIPTION'], ...found.items.map((h) => [toolRef(slugs.get(h.tool.bundleId) ?? h.tool.bundleId, h.tool), h.tool.type, h.tier, firstLine(h.tool.description, 60)])]));
  });
}

export async function toolsShow(ref: string, o: CommonOptions): Promise<void> {
  await withCore(o, async (s) => {
    const tool = await s.tool(ref);
    if (o.json) return outJson(tool);
    const bundle = s.core.registry.store.bundleById(tool.bundleId);
    const versions = s.core.registry.store
      .toolsOf(tool.bundleId)
      .filter((t) => t.slug === tool.slug)
      .map((t) => t.version)
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    const store = s.core.registry.store;
    out(describeTool(tool, bundle, versions, approvalOf(tool, store.approvals())));
  });
}

function describeTool(t: ToolView, bundle: Bundle | undefined, versions: string[], approval: ApprovalInfo | null): string {
  const lines = [`${toolRef(bundle?.slug ?? t.bundleId, t)} — ${t.displayName}`, ''];
  if (t.description) lines.push(t.description, '');
  const state = t.isEnabled ? 'on' : `off${t.unavailableReason ? ` (${t.unavailableReason})` : ''}`;
  const rows: [string, string][] = [
    ['Type', t.type],
    ['Switched', bundle && !bundle.isEnabled ? `${state}; its bundle is off` : state],
    ['Runs', backendLine(t)],
    ['Versions', versions.join(', ')],
    ['Tags', t.tags.join(', ') || '—'],
    ['Approval', approvalLine(approval)],
    ['Built in', t.isBuiltIn ? 'yes' : 'no'],
    ['Id', t.id],
    ['Bundle', bundle ? `${bundle.slug} (${bundle.id})` : t.bundleId],
    ['Modified', t.modifiedAt],
  ];
  lines.push(table(rows.map(([k, v]) => [`${k}:`, v])), '', 'Arguments:');
  const args = argumentRows(t.argSchema);
  lines.push(args.length ? table(args.map((r) => ['  ' + r[0], ...r.slice(1)])) : '  (none)');
  return lines.join('\n');
}

/** Whether a model's (or a served) call waits for approval, and why when the tool does not say so itself. */
function approvalLine(a: ApprovalInfo | null): string {
  if (!a) return 'not asked';
  if (a.reason.kind === 'function') return `a model’s call waits for approval (it runs ${a.reason.functionId}, which asks)`;
  if (a.reason.kind === 'step') return `a model’s call waits for approval (its step ${a.reason.step} calls ${a.reason.tool}, which asks)`;
  if (a.reason.kind === 'script') return 'its script was not written in this app: every call is refused until it is trusted (toolsmith invoke --trust, or "Trust and run" in the app)';
  return 'a model’s call waits for approval';
}

function backendLine(t: ToolView): string {
  if (t.local) return `local function ${t.local.functionId}`;
  if (t.http) return `HTTP ${t.http.method} ${t.http.urlTemplate}`;
  if (t.sequence) return `a sequence of ${t.sequence.steps.length} steps`;
  if (t.mcp) return `MCP tool ${t.mcp.serverTool}`;
  if (t.script) return `a script (its source: ${t.slug}.js beside the tool's file; sha256 ${t.script.sha256.slice(0, 12)}…)`;
  return t.type;
}

function argumentRows(schema: unknown): string[][] {
  const s = schema as { properties?: Record<string, { type?: unknown; description?: unknown }>; required?: unknown };
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  return Object.entries(s.properties ?? {}).map(([name, p]) => [
    name,
    Array.isArray(p?.type) ? p.type.join('|') : typeof p?.type === 'string' ? p.type : 'any',
    required.has(name) ? 'required' : 'optional',
    typeof p?.description === 'string' ? firstLine(p.description, 60) : '',
  ]);
}

export async function bundlesList(o: CommonOptions & { deleted?: boolean }): Promise<void> {
  await withCore(o, async (s) => {
    const bundles = await s.allBundles(o.deleted ?? false);
    if (o.json) return outJson(bundles);
    if (bundles.length === 0) return out('No bundles.');
    const counts = new Map<string, number>();
    for (const t of s.core.registry.store.allTools()) counts.set(t.bundleId, (counts.get(t.bundleId) ?? 0) + 1);
    out(
      table([
        ['BUNDLE', 'STATE', 'TOOLS', 'KIND', 'ID'],
        ...bundles.map((b) => [b.slug, b.softDeletedAt ? 'deleted' : b.isEnabled ? 'on' : 'off', String(counts.get(b.id) ?? 0), b.isBuiltIn ? 'built-in' : 'yours', b.id]),
      ]),
    );
  });
}

export async function bundlesSwitch(name: string, isEnabled: boolean, o: CommonOptions): Promise<void> {
  await withCore(o, async (s) => {
    const b = await s.bundle(name);
    const after = await s.call('bundles.patch', { bundleId: b.id, isEnabled });
    if (o.json) return outJson(after);
    out(b.isEnabled === isEnabled ? `Bundle '${after.slug}' was already switched ${isEnabled ? 'on' : 'off'}.` : `Bundle '${after.slug}' switched ${isEnabled ? 'on' : 'off'}.`);
  });
}

export async function bundlesExport(name: string, o: CommonOptions & { out?: string }): Promise<void> {
  if (!o.out) throw usageError('say where to write the archive: --out FILE.zip');
  const target = path.resolve(o.out);
  await withCore(o, async (s) => {
    const b = await s.bundle(name);
    const zip = await s.call('transfer.exportBundle', { bundleId: b.id });
    const bytes = Buffer.from(zip.base64, 'base64');
    try {
      await writeFileAtomic(target, bytes);
    } catch (e) {
      throw new CliError(`could not write ${target}: ${(e as Error).message}`);
    }
    if (o.json) return outJson({ bundleId: b.id, bundleSlug: b.slug, file: target, bytes: bytes.length, tools: s.core.registry.store.toolsOf(b.id).length });
    out(`Exported bundle '${b.slug}' (${s.core.registry.store.toolsOf(b.id).length} tools) to ${target}.`);
  });
}

export async function bundlesImport(file: string, o: CommonOptions): Promise<void> {
  const source = path.resolve(file);
  let bytes: Buffer;
  try {
    const st = await fs.stat(source);
    if (!st.isFile()) throw new Error('not a file');
    if (st.size > MAX_IMPORT_ZIP_BYTES) throw new Error(`it is ${st.size} bytes; an archive may be at most ${MAX_IMPORT_ZIP_BYTES} bytes`);
    bytes = await fs.readFile(source);
  } catch (e) {
    throw new CliError(`cannot read ${source}: ${(e as Error).message}`);
  }
  await withCore(o, async (s) => {
    const report = await s.call('transfer.importBundle', { base64: bytes.toString('base64') });
    if (o.json) outJson(report);
    else {
      const lines = [
        report.nothingImported ? `Nothing was imported from ${source}.` : `Imported ${report.imported.length} tools into bundle '${report.bundleSlug ?? ''}' (${report.bundleId ?? ''}).`,
        ...(report.renamed
          ? [`  renamed: '${report.renamed.from.slug}' ("${report.renamed.from.displayName}") → '${report.renamed.to.slug}' ("${report.renamed.to.displayName}"): a bundle with that slug or name is here already`]
          : []),
        ...report.imported.map((t) => `  + ${t}`),
        ...(report.testCases ?? []).map((t) => `  test cases: ${t.slug} (${t.count})`),
        ...(report.asks ?? []).map((a) => `  asks before it runs: ${a.tool}: ${a.message}`),
        ...report.conflicts.map((t) => `  ! ${t} appears more than once in the archive; not imported`),
        ...report.invalid.map((i) => `  ! ${i.entry}: ${i.message}`),
      ];
      out(lines.join('\n'));
    }
    if (report.nothingImported) throw new CliError('the archive added no tools', 1);
  });
}
