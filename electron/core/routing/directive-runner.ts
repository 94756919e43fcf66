/**
 * Runs the directives of a parsed text (a chat message, a workflow step, a context
 * section) with one set of rules:
 *
 * 1. Everything that can be judged before running is judged first: parse errors, unknown
 *    or ambiguous tools, unknown input schemes, unknown placeholders. Any of them refuses the
 *    whole text with one VALIDATION_FAILED (details.errors) and nothing is read or written.
 * 2. Each `@input` runs in order: its source is read, then routed (a manifest) or inlined
 *    (cut past INLINE_VALUE_MAX_CHARS). A failure at this stage (a missing file) is that
 *    input's outcome; the others still run.
 * 3. The prompt is the text without its directives, then one block per input: its manifest,
 *    its inlined text under `[input] SOURCE`, or `[input failed] SOURCE: why`. Glob matches
 *    left out (symbolic links outside, to nothing, to a folder) follow as `skipped: ...`.
 *
 * Tools are named by slug, or `bundleSlug/slug`; the usable (enabled) tool with that slug is
 * used, the highest version when a bundle holds several. The same slug in several bundles
 * is an error naming them.
 */
import type { AggregatedTool, DirectiveError, ParsedText, Span } from '../../../shared/directives/types';
import { AppError, isAppError, type ErrorInfo } from '../../../shared/errors';
import { compareVersions } from '../../../shared/versions';
import { INLINE_VALUE_MAX_CHARS, type DirectiveOutcome } from '../../../shared/model/conversation';
import type { ToolView } from '../../../shared/model/tool';
import { nfc } from '../../../shared/model/validation';
import type { Registry } from '../registry/registry';
import { destinationProblem } from './destination';
import type { InputSources } from './input-sources';
import { formatCount } from './manifest';
import type { DirectiveRunContext, DirectiveRunner, DirectiveRunResult, OutputRouter, ResolvedTool } from './types';

export interface ToolCandidate {
  tool: ToolView;
  bundleSlug: string;
  /** The bundle's display name, where the caller has it (tool search reads it). */
  bundleName?: string;
}

/** The tools a directive may name: the usable ones (tool, function and bundle enabled). */
export interface ToolDirectory {
  usableTools(): ToolCandidate[];
}

export function registryToolDirectory(registry: Registry): ToolDirectory {
  return {
    usableTools: () =>
      registry.store
        .allTools()
        .filter((t) => registry.store.isUsable(t.id))
        .map((tool) => ({ tool, bundleSlug: registry.store.bundleById(tool.bundleId)?.slug ?? '' })),
  };
}

export interface DirectiveRunnerDeps {
  router: OutputRouter;
  sources: InputSources;
  tools: ToolDirectory;
  now: () => Date;
  /** Default INLINE_VALUE_MAX_CHARS. */
  inlineMaxChars?: number;
}

type Resolution = { ok: true; candidate: ToolCandidate } | { ok: false; message: string };

const byVersion = (a: ToolCandidate, b: ToolCandidate): number =>
  compareVersions(a.tool.version, b.tool.version) || a.tool.modifiedAt.localeCompare(b.tool.modifiedAt);

/** Finds the tool a directive names; see the file comment. */
export function resolveToolName(name: string, usable: ToolCandidate[]): Resolution {
  const slash = name.indexOf('/');
  const bundle = slash >= 0 ? nfc(name.slice(0, slash)) : undefined;
  const slug = nfc(slash >= 0 ? name.slice(slash + 1) : name);
  const matches = usable.filter((c) => nfc(c.tool.slug) === slug && (bundle === undefined || nfc(c.bundleSlug) === bundle));
  if (matches.length === 0) {
    const hyphened = slug.replace(/_/g, '-');
    const hint = hyphened !== slug && usable.some((c) => nfc(c.tool.slug) === hyphened) ? ` (did you mean '${bundle ? `${bundle}/` : ''}${hyphened}'?)` : '';
    return { ok: false, message: `unknown tool '${name}': no enabled tool has this ${bundle === undefined ? 'slug' : 'bundle and slug'}${hint}` };
  }
  const bundleIds = [...new Set(matches.map((c) => c.tool.bundleId))];
  if (bundleIds.length > 1) {
    const names = bundleIds.map((id) => {
      const c = matches.find((m) => m.tool.bundleId === id)!;
      return `${c.bundleSlug}/${c.tool.slug}`;
    });
    const same = new Set(names).size < names.length;
    return {
      ok: false,
      message: `the tool '${name}' is in several bundles: ${names.join(', ')}; ${same ? 'two bundles share a name: rename one' : 'write bundle/slug to pick one'}`,
    };
  }
  return { ok: true, candidate: matches.sort(byVersion).at(-1)! };
}

function errorInfo(e: unknown): ErrorInfo {
  if (isAppError(e)) return e.toInfo();
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };
}

/** The first `max` characters, never splitting a surrogate pair. */
function cut(text: string, max: number): string {
  let end = Math.min(max, text.length);
  const c = text.charCodeAt(end - 1);
  if (end < text.length && c >= 0xd800 && c <= 0xdbff) end--;
  return text.slice(0, end);
}

function directiveErrorMessage(errors: DirectiveError[]): string {
  const shown = errors.slice(0, 3).map((e) => `line ${e.line}, column ${e.column}: ${e.message}`);
  const more = errors.length > 3 ? ` (and ${errors.length - 3} more)` : '';
  return `the directives have errors: ${shown.join('; ')}${more}`;
}

export class DirectiveRunnerImpl implements DirectiveRunner {
  constructor(private readonly deps: DirectiveRunnerDeps) {}

  check(parsed: ParsedText): DirectiveError[] {
    const errors: DirectiveError[] = [...parsed.errors];
    this.resolveTools(parsed, errors);
    this.checkInputs(parsed, errors);
    return errors.sort((a, b) => a.start - b.start || a.end - b.end);
  }

  async run(parsed: ParsedText, ctx: DirectiveRunContext): Promise<DirectiveRunResult> {
    const errors: DirectiveError[] = [...parsed.errors];
    const tools = this.resolveTools(parsed, errors);
    this.checkInputs(parsed, errors);
    if (errors.length > 0) {
      const sorted = errors.sort((a, b) => a.start - b.start || a.end - b.end);
      throw new AppError('VALIDATION_FAILED', directiveErrorMessage(sorted), { errors: sorted });
    }

    const outcomes: DirectiveOutcome[] = [];
    const blocks: string[] = parsed.prompt === '' ? [] : [parsed.prompt];
    const max = this.deps.inlineMaxChars ?? INLINE_VALUE_MAX_CHARS;
    for (const d of parsed.directives) {
      if (d.kind !== 'input') continue;
      if (ctx.signal?.aborted) throw new AppError('CANCELLED', 'cancelled');
      const name = `${d.source.scheme}:${d.source.value}`;
      try {
        const source = this.deps.sources.get(d.source.scheme.toLowerCase())!;
        const readCtx = { ownerId: ctx.ownerId, now: this.deps.now(), signal: ctx.signal };
        const content = await source.read(d.source.value, readCtx, d.source.quoted ? { quoted: d.source.quoted } : {});
        const dest = d.params.output;
        const manifest =
          dest && dest.kind !== 'inline'
            ? await this.deps.router.route({
                ownerId: ctx.ownerId,
                content: content.text,
                destination: dest,
                writeMode: d.params.writeMode,
                label: { kind: 'input', name, count: content.count, paths: content.paths },
                source: `input:${name}`,
                signal: ctx.signal,
              })
            : null;
        const skippedNote = content.skipped?.length ? `\nskipped: ${content.skipped.join(', ')}` : '';
        if (manifest) {
          const shown = skippedNote ? { ...manifest, text: manifest.text + skippedNote } : manifest;
          outcomes.push({ directive: d.raw, manifest: shown });
          blocks.push(shown.text);
        } else {
          const truncated = content.text.length > max;
          const inlineText = truncated ? cut(content.text, max) : content.text;
          outcomes.push(truncated ? { directive: d.raw, inlineText, inlineTruncated: true } : { directive: d.raw, inlineText });
          const note = truncated ? `\n[input cut: the first ${formatCount(inlineText.length)} of ${formatCount(content.text.length)} chars]` : '';
          blocks.push(`[input] ${name}\n${inlineText}${note}${skippedNote}`);
        }
      } catch (e) {
        if (isAppError(e) && e.code === 'CANCELLED') throw e;
        const error = errorInfo(e);
        outcomes.push({ directive: d.raw, error });
        blocks.push(`[input failed] ${name}: ${error.message}`);
      }
    }

    const result: DirectiveRunResult = { outcomes, tools, modelNone: parsed.modelNone, prompt: blocks.join('\n\n') };
    if (parsed.model !== undefined) result.model = parsed.model;
    return result;
  }

  /**
   * The `@tools` tokens resolved in document order, then merged by tool: two names for one
   * tool (`grep`, `files/grep`) are one tool, and the last output= and write-mode= written win.
   * An unknown or ambiguous name is reported once, at its first token.
   */
  private resolveTools(parsed: ParsedText, errors: DirectiveError[]): ResolvedTool[] {
    const tokens = toolTokens(parsed);
    if (tokens.length === 0) return [];
    const usable = this.deps.tools.usableTools();
    const byName = new Map<string, Resolution>();
    const byId = new Map<string, ResolvedTool>();
    for (const t of tokens) {
      let r = byName.get(t.name);
      if (!r) {
        r = resolveToolName(t.name, usable);
        byName.set(t.name, r);
        if (!r.ok) errors.push({ ...t.span, message: r.message });
      }
      if (!r.ok) continue;
      const problem = t.output && destinationProblem(t.output);
      if (problem) errors.push({ ...t.span, message: `${t.name}: ${problem}` });
      const prev = byId.get(r.candidate.tool.id);
      const merged: ResolvedTool = prev ?? { name: t.name, tool: r.candidate.tool };
      if (t.output) merged.output = t.output;
      if (t.writeMode) merged.writeMode = t.writeMode;
      byId.set(r.candidate.tool.id, merged);
    }
    return [...byId.values()];
  }

  private checkInputs(parsed: ParsedText, errors: DirectiveError[]): void {
    const schemes = [...this.deps.sources.keys()].map((s) => `${s}:`).join(', ');
    for (const d of parsed.directives) {
      if (d.kind !== 'input') continue;
      const source = this.deps.sources.get(d.source.scheme.toLowerCase());
      const problem = !source
        ? `unknown input source '${d.source.scheme}:': use ${schemes}`
        : (source.check?.(d.source.value) ?? (d.params.output ? destinationProblem(d.params.output) : null));
      if (problem) errors.push({ ...d.span, message: problem });
    }
  }
}

/**
 * Every `@tools` token in document order. A parsed text whose tools were given without
 * their directives (built by hand) falls back to its aggregated list.
 */
function toolTokens(parsed: ParsedText): (AggregatedTool & { span: Span })[] {
  const tokens: (AggregatedTool & { span: Span })[] = [];
  for (const d of parsed.directives) if (d.kind === 'tools') tokens.push(...d.tools);
  if (tokens.length > 0 || parsed.tools.length === 0) return tokens;
  return parsed.tools.map((t) => ({ ...t, span: { start: 0, end: 0, line: 1, column: 1 } }));
}
