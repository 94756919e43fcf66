/**
 * A server's tool list into the bundle's tool files. Each listed tool is checked on its own: a
 * tool whose schema is not one we can validate with (or whose name or shape is wrong) is skipped
 * and reported, the others are kept. Files are the truth: a tool the server no longer lists is
 * left on disk (reported as missing); a tool whose definition changed gets a new version (tool
 * versions never change) and the older version is switched off.
 */
import { schemaCompileViolation } from '../bundles/schema-check';
import { argSchemaViolation, LABEL_MAX_RUNES, nfc } from '../../../shared/model/validation';
import { McpToolAnnotationsSchema, type McpSpec, type ToolPutBody, type ToolView } from '../../../shared/model/tool';
import { hintsGiven, possiblyDestructive } from '../../../shared/model/tool-approval';
import type { ToolStore } from '../bundles/tool-store';
import { scanParamHeaders } from './param-headers';

export interface SkippedTool {
  name: string;
  reason: string;
}

/** A tool not brought in; `switchOff`: the server lists it, but it cannot be called from here, so a version stored before is switched off. */
interface NotBroughtIn extends SkippedTool {
  switchOff?: true;
}

export interface SyncReport {
  skipped: SkippedTool[];
  /** Stored tools switched off, and why: the server now lists them as tools we cannot run. */
  switchedOff: SkippedTool[];
  /** serverTool names stored but not listed any more. */
  missing: string[];
  added: number;
  changed: number;
}

/** What the server's config says of its tools. */
export interface SyncOptions {
  /** Tools that give no hints of their effects run without asking (the server's trust switch). */
  trustUnannotatedTools?: boolean;
  /** The server runs tools/call as MCP tasks (capabilities.tasks.requests.tools.call). */
  tasks?: boolean;
  /** The server speaks 2026-07-28 over HTTP: a tool's x-mcp-header annotations must be valid (./param-headers.ts). */
  paramHeaders?: boolean;
}

/**
 * Whether a model's call of a server's tool waits for approval. Per MCP a tool is possibly
 * destructive unless it says it is read-only or not destructive (the defaults are
 * readOnlyHint false, destructiveHint true), so a tool without hints asks, unless the server
 * is trusted; a tool the server says is destructive always asks.
 */
export function mcpToolAsks(hints: McpSpec['annotations'], opts: SyncOptions = {}): boolean {
  if (!possiblyDestructive(hints)) return false;
  if (hints?.destructiveHint === true) return true;
  return !opts.trustUnannotatedTools || hintsGiven(hints);
}

/** The most tools one server may bring in. */
export const MAX_SERVER_TOOLS = 1_000;

const JSON_SCHEMA_2020 = 'https://json-schema.org/draft/2020-12/schema';

/** Why a tool that runs only as an MCP task is not brought in: its server does not say it runs calls as tasks. */
export const TASK_REQUIRED = 'it can only run as an MCP task (execution.taskSupport: required), and its server does not offer tasks for tools/call (capabilities.tasks.requests.tools.call)';

/** Why a tool whose x-mcp-header annotations break the rules is not brought in (MCP 2026-07-28 asks clients to leave it out). */
export const invalidParamHeader = (why: string) => `its inputSchema asks for an HTTP header the rules of MCP 2026-07-28 do not allow, so it is left out: ${why}`;

/** A listed tool as a tool body, or the reason it cannot be one. */
export function toolBodyOf(raw: unknown, opts: SyncOptions = {}): { name: string; body: ToolPutBody } | NotBroughtIn {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { name: '(unnamed)', reason: 'not an object' };
  const t = raw as Record<string, unknown>;
  const name = typeof t.name === 'string' ? t.name : '';
  if (!name || name.length > 256) return { name: name.slice(0, 80) || '(unnamed)', reason: 'its name must be a string of 1 to 256 characters' };
  // MCP tasks (2025-11-25): a tool that runs only as a task fails every plain tools/call.
  const taskOnly = isObj(t.execution) && t.execution.taskSupport === 'required';
  if (taskOnly && !opts.tasks) return { name, reason: TASK_REQUIRED, switchOff: true };
  const argSchema = plainSchema(t.inputSchema);
  const argProblem = argSchema === undefined ? 'inputSchema is missing or not an object' : (argSchemaViolation(argSchema, 'inputSchema') ?? schemaCompileViolation(argSchema, 'inputSchema'))?.message;
  if (argProblem) return { name, reason: argProblem };
  if (opts.paramHeaders) {
    const scan = scanParamHeaders(argSchema);
    if (!scan.ok) return { name, reason: invalidParamHeader(scan.reason), switchOff: true };
  }
  let outputSchema: Record<string, unknown> = {};
  if (t.outputSchema !== undefined) {
    const out = plainSchema(t.outputSchema);
    const outProblem = out === undefined ? 'outputSchema is not an object' : (argSchemaViolation(out, 'outputSchema') ?? schemaCompileViolation(out, 'outputSchema'))?.message;
    if (outProblem) return { name, reason: outProblem };
    outputSchema = out!;
  }
  const annotations = McpToolAnnotationsSchema.safeParse(pick(t.annotations, ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']));
  const title = typeof t.title === 'string' ? t.title : isObj(t.annotations) && typeof t.annotations.title === 'string' ? t.annotations.title : undefined;
  const mcp: McpSpec = { serverTool: name };
  if (title?.trim()) mcp.title = title.trim().slice(0, 256);
  if (annotations.success && Object.keys(annotations.data).length) mcp.annotations = annotations.data;
  if (taskOnly) mcp.task = 'required';
  const ui = appLink(t._meta);
  if (ui) mcp.ui = ui;
  const body: ToolPutBody = {
    displayName: clean(title?.trim() || name, 128),
    description: clean(typeof t.description === 'string' ? t.description : '', 16_384),
    tags: ['mcp'],
    type: 'mcp',
    argSchema: argSchema!,
    outputSchema,
    mcp,
    isEnabled: true,
  };
  if (mcpToolAsks(mcp.annotations, opts)) body.requiresApproval = true;
  return { name, body };
}

/**
 * The tool's MCP App, from `_meta.ui` (or the older flat key `_meta["ui/resourceUri"]`, which
 * servers still send beside it). An address that is not `ui://`, or one too long, is no app:
 * the tool is brought in without one. Unknown visibility words are left out.
 */
export function appLink(meta: unknown): McpSpec['ui'] | undefined {
  if (!isObj(meta)) return undefined;
  const ui = isObj(meta.ui) ? meta.ui : {};
  const uri = typeof ui.resourceUri === 'string' ? ui.resourceUri : typeof meta['ui/resourceUri'] === 'string' ? meta['ui/resourceUri'] : undefined;
  const out: NonNullable<McpSpec['ui']> = {};
  if (uri && uri.startsWith('ui://') && uri.length <= 2048) out.resourceUri = uri;
  // Who may call it is read on its own: a tool the server shows to its app only may have no page.
  if (Array.isArray(ui.visibility)) {
    const seen = [...new Set(ui.visibility.filter((v): v is 'model' | 'app' => v === 'model' || v === 'app'))];
    // An empty list after filtering would hide the tool from everyone: no visibility then means both.
    if (seen.length) out.visibility = seen;
  }
  return out.resourceUri || out.visibility ? out : undefined;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pick(v: unknown, keys: string[]): Record<string, unknown> {
  if (!isObj(v)) return {};
  return Object.fromEntries(keys.filter((k) => typeof v[k] === 'boolean').map((k) => [k, v[k]]));
}

/** A schema with a draft-07 `$schema` (common in MCP servers) read as 2020-12: the keywords tools use mean the same. */
function plainSchema(v: unknown): Record<string, unknown> | undefined {
  if (!isObj(v)) return undefined;
  if (v.$schema === undefined || v.$schema === JSON_SCHEMA_2020) return v;
  const { $schema: _drop, ...rest } = v;
  return rest;
}

/** Control characters (but newlines and tabs) become spaces; the text is cut to `max`. */
function clean(s: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const t = s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, ' ');
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** A slug from a server's tool name: letters and digits kept, anything else a '-'. */
export function slugOf(name: string, taken: Set<string>): string {
  const base = [...nfc(name).replace(/[^\p{L}\p{Nd}]+/gu, '-').replace(/^-+|-+$/g, '')].slice(0, LABEL_MAX_RUNES - 4).join('') || 'tool';
  let slug = base;
  for (let i = 2; taken.has(slug); i++) slug = `${base}-${i}`;
  return slug;
}

function sameDefinition(a: ToolView, b: ToolPutBody): boolean {
  return (
    a.displayName === b.displayName &&
    a.description === b.description &&
    JSON.stringify(a.argSchema) === JSON.stringify(b.argSchema) &&
    JSON.stringify(a.outputSchema) === JSON.stringify(b.outputSchema) &&
    JSON.stringify(a.mcp ?? null) === JSON.stringify(b.mcp ?? null) &&
    Boolean(a.requiresApproval) === Boolean(b.requiresApproval)
  );
}

/** The newest version of each serverTool stored in the bundle. */
function latestByServerTool(tools: ToolView[]): Map<string, ToolView> {
  const out = new Map<string, ToolView>();
  for (const t of tools) {
    if (t.type !== 'mcp' || !t.mcp) continue;
    const cur = out.get(t.mcp.serverTool);
    if (!cur || Number(t.version) > Number(cur.version)) out.set(t.mcp.serverTool, t);
  }
  return out;
}

/** Writes what changed; a tool that cannot be written is reported with the others skipped. */
export async function syncTools(store: ToolStore, bundleId: string, listed: unknown[], opts: SyncOptions = {}): Promise<SyncReport> {
  const report: SyncReport = { skipped: [], switchedOff: [], missing: [], added: 0, changed: 0 };
  const stored = store.toolsOf(bundleId);
  const latest = latestByServerTool(stored);
  const taken = new Set(stored.map((t) => t.slug));
  const seen = new Set<string>();
  for (const raw of listed.slice(0, MAX_SERVER_TOOLS)) {
    const r = toolBodyOf(raw, opts);
    if ('reason' in r) {
      report.skipped.push({ name: r.name, reason: r.reason });
      if (r.switchOff && !seen.has(r.name)) {
        // Listed (so not missing), but the version stored before must not be called now.
        seen.add(r.name);
        const prev = latest.get(r.name);
        if (prev?.isEnabled) {
          try {
            await store.patchTool(bundleId, prev.slug, prev.version, { isEnabled: false });
            report.switchedOff.push({ name: r.name, reason: r.reason });
          } catch (e) {
            report.skipped.push({ name: r.name, reason: `its stored version could not be switched off: ${reasonOf(e)}` });
          }
        }
      }
      continue;
    }
    if (seen.has(r.name)) {
      report.skipped.push({ name: r.name, reason: 'listed twice; the first is kept' });
      continue;
    }
    seen.add(r.name);
    const prev = latest.get(r.name);
    if (prev && sameDefinition(prev, r.body)) continue;
    try {
      if (prev) {
        await putNextVersion(store, bundleId, prev, r.body);
        report.changed++;
      } else {
        const slug = slugOf(r.name, taken);
        taken.add(slug);
        await store.putTool(bundleId, slug, '1', r.body);
        report.added++;
      }
    } catch (e) {
      report.skipped.push({ name: r.name, reason: `it could not be stored: ${reasonOf(e)}` });
    }
  }
  if (listed.length > MAX_SERVER_TOOLS) report.skipped.push({ name: `${listed.length - MAX_SERVER_TOOLS} more`, reason: `a server may bring in at most ${MAX_SERVER_TOOLS} tools` });
  for (const name of latest.keys()) if (!seen.has(name)) report.missing.push(name);
  return report;
}

/** Why a write failed, in words: every tool not brought in says why, whatever was thrown. */
function reasonOf(e: unknown): string {
  const message = e instanceof Error ? e.message : typeof e === 'string' ? e : '';
  return message.trim() || 'the store gave no reason (see the app’s problems list)';
}

/** A changed definition: a new version (versions never change), enabled as the old one was; the old one switched off. */
async function putNextVersion(store: ToolStore, bundleId: string, prev: ToolView, body: ToolPutBody): Promise<void> {
  const version = String((Number(prev.version) || 1) + 1);
  await store.putTool(bundleId, prev.slug, version, { ...body, isEnabled: prev.isEnabled });
  if (prev.isEnabled) await store.patchTool(bundleId, prev.slug, prev.version, { isEnabled: false });
}

/**
 * The server's trust switch changed: each stored tool whose approval it changes gets a new
 * version with the new setting, at once and from the hints stored with it (the server need not
 * run). Answers how many tools changed; one that cannot be written is left as it was and named.
 */
export async function applyTrust(store: ToolStore, bundleId: string, opts: SyncOptions): Promise<{ changed: number; failed: SkippedTool[] }> {
  const out = { changed: 0, failed: [] as SkippedTool[] };
  for (const [name, prev] of latestByServerTool(store.toolsOf(bundleId))) {
    const asks = mcpToolAsks(prev.mcp?.annotations, opts);
    if (Boolean(prev.requiresApproval) === asks) continue;
    const body: ToolPutBody = {
      displayName: prev.displayName,
      description: prev.description,
      tags: prev.tags,
      type: prev.type,
      argSchema: prev.argSchema,
      outputSchema: prev.outputSchema,
      ...(prev.mcp ? { mcp: prev.mcp } : {}),
      isEnabled: prev.isEnabled,
      ...(asks ? { requiresApproval: true } : {}),
    };
    try {
      await putNextVersion(store, bundleId, prev, body);
      out.changed++;
    } catch (e) {
      out.failed.push({ name, reason: reasonOf(e) });
    }
  }
  return out;
}
