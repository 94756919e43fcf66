/**
 * A conversation's context sections, evaluated: each enabled section's directives run now,
 * giving the text a model is given (with manifests of routed inputs). The chat's "Evaluate"
 * and the agent's system message use the same evaluation.
 */
import { parseDirectives } from '../../../shared/directives/parser';
import type { DirectiveOutcome } from '../../../shared/model/conversation';
import type { ConversationStore } from '../chat/conversation-store';
import { errorOutcomes, refusalErrors } from '../chat/directive-errors';
import { toErrorInfo } from '../router';
import type { RoutingServices } from '../routing';
import type { DirectiveRunResult } from '../routing/types';

export interface EvaluatedSection {
  sectionId: string;
  title: string;
  text: string;
  modelNone: boolean;
  outcomes: DirectiveOutcome[];
}

export async function evaluateSections(
  deps: { conversations: Pick<ConversationStore, 'contextSections'>; routing: Pick<RoutingServices, 'directives'> },
  conversationId: string,
  signal?: AbortSignal,
): Promise<EvaluatedSection[]> {
  const out: EvaluatedSection[] = [];
  for (const s of deps.conversations.contextSections(conversationId)) {
    if (!s.enabled) continue;
    const parsed = parseDirectives(s.text);
    const base = { sectionId: s.id, title: s.title };
    if (parsed.errors.length > 0) {
      out.push({ ...base, text: parsed.prompt, modelNone: parsed.modelNone, outcomes: errorOutcomes(s.text, parsed.errors) });
      continue;
    }
    let r: DirectiveRunResult;
    try {
      r = await deps.routing.directives.run(parsed, { ownerId: conversationId, signal });
    } catch (e) {
      const errors = refusalErrors(e);
      const outcomes = errors ? errorOutcomes(s.text, errors) : [{ directive: s.title, error: toErrorInfo(e, 'conversations.evaluateContext') }];
      out.push({ ...base, text: parsed.prompt, modelNone: parsed.modelNone, outcomes });
      continue;
    }
    out.push({ ...base, text: r.prompt, modelNone: r.modelNone, outcomes: r.outcomes });
  }
  return out;
}

/** The system message: the sections meant for a model (`@model none` ones only run their directives), in order. */
export function systemText(sections: readonly EvaluatedSection[]): string {
  return sections
    .filter((s) => !s.modelNone && s.text.trim() !== '')
    .map((s) => s.text.trim())
    .join('\n\n');
}
