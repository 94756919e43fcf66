/**
 * A conversation's context sections, evaluated: each enabled section's directives run now,
 * giving the text a model is given (with manifests of routed inputs) and the tools its
 * `@tools` lines name. The chat's "Evaluate" and the agent's turns use the same evaluation.
 *
 * Sections run again on every turn and every Evaluate, so a routed `@input` of a section
 * writes with write-mode `replace` unless it says otherwise: `@input file:notes.md
 * (output=variable:notes)` keeps one copy of the file in `notes`, not one per turn.
 */
import { parseDirectives } from '../../../shared/directives/parser';
import type { Directive, ParsedText } from '../../../shared/directives/types';
import type { DirectiveOutcome } from '../../../shared/model/conversation';
import type { ConversationStore } from '../timeline/conversation-store';
import { errorOutcomes, refusalErrors } from '../timeline/directive-errors';
import { toErrorInfo } from '../../../shared/errors';
import type { RoutingServices } from '../routing';
import type { DirectiveRunResult, ResolvedTool } from '../routing/types';
import type { DirectiveTool } from './tools-for-model';

export interface EvaluatedSection {
  sectionId: string;
  title: string;
  text: string;
  modelNone: boolean;
  outcomes: DirectiveOutcome[];
}

export interface EvaluatedContext {
  sections: EvaluatedSection[];
  /** The tools the sections' `@tools` lines name, in order (a later section's routing wins). */
  tools: DirectiveTool[];
}

type ContextDeps = { conversations: Pick<ConversationStore, 'contextSections'>; routing: Pick<RoutingServices, 'directives'> };

/** What Evaluate shows: each enabled section, evaluated. */
export async function evaluateSections(deps: ContextDeps, conversationId: string, signal?: AbortSignal): Promise<EvaluatedSection[]> {
  return (await evaluateContext(deps, conversationId, signal)).sections;
}

export async function evaluateContext(deps: ContextDeps, conversationId: string, signal?: AbortSignal): Promise<EvaluatedContext> {
  const sections: EvaluatedSection[] = [];
  const tools: DirectiveTool[] = [];
  for (const s of deps.conversations.contextSections(conversationId)) {
    if (!s.enabled) continue;
    const parsed = parseDirectives(s.text);
    const base = { sectionId: s.id, title: s.title };
    if (parsed.errors.length > 0) {
      sections.push({ ...base, text: parsed.prompt, modelNone: parsed.modelNone, outcomes: errorOutcomes(s.text, parsed.errors) });
      continue;
    }
    let r: DirectiveRunResult;
    try {
      r = await deps.routing.directives.run(replaceByDefault(parsed), { ownerId: conversationId, signal });
    } catch (e) {
      const errors = refusalErrors(e);
      const outcomes = errors ? errorOutcomes(s.text, errors) : [{ directive: s.title, error: toErrorInfo(e, 'conversations.evaluateContext') }];
      sections.push({ ...base, text: parsed.prompt, modelNone: parsed.modelNone, outcomes });
      continue;
    }
    sections.push({ ...base, text: r.prompt, modelNone: r.modelNone, outcomes: r.outcomes });
    tools.push(...r.tools.map(directiveTool));
  }
  return { sections, tools };
}

/** A resolved `@tools` token as the model's tool list takes it. */
export function directiveTool(t: Pick<ResolvedTool, 'tool' | 'output' | 'writeMode'>): DirectiveTool {
  return { toolId: t.tool.id, ...(t.output ? { output: t.output } : {}), ...(t.writeMode ? { writeMode: t.writeMode } : {}) };
}

/** The section's `@input` directives write with `replace` unless they name a write mode. */
export function replaceByDefault(parsed: ParsedText): ParsedText {
  const directives = parsed.directives.map((d): Directive =>
    d.kind === 'input' && !d.params.writeMode ? { ...d, params: { ...d.params, writeMode: 'replace' } } : d,
  );
  return { ...parsed, directives };
}

/** The system message: the sections meant for a model (`@model none` ones only run their directives), in order. */
export function systemText(sections: readonly EvaluatedSection[]): string {
  return sections
    .filter((s) => !s.modelNone && s.text.trim() !== '')
    .map((s) => s.text.trim())
    .join('\n\n');
}
