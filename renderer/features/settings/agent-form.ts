/**
 * Settings → Agents as typed: a profile's form draft and back, a copy of a built-in, and the
 * core's refusal (`details.issues`, each `{ path, message }`) mapped onto the form's fields.
 * The step limit stays the text in its box; one that is not a number goes to the core as
 * NaN (null on the wire), so the refusal names the field and nothing typed is lost.
 */
import type { AgentProfile, AgentProfileView } from '../../../shared/model/agent-profile';
import type { ModelRef, ToolSelection } from '../../../shared/model/provider';

export interface AgentDraft {
  name: string;
  displayName: string;
  description: string;
  systemPrompt: string;
  /** null: the model of the task that delegates to it. */
  model: ModelRef | null;
  /** null: no registry tools. */
  tools: ToolSelection | null;
  delegatesTo: string[];
  canAskMaster: boolean;
  maxSteps: string;
}

export const AGENT_FIELDS = ['name', 'displayName', 'description', 'systemPrompt', 'model', 'tools', 'delegatesTo', 'canAskMaster', 'maxSteps'] as const;
export type AgentField = (typeof AGENT_FIELDS)[number];

export const DEFAULT_MAX_STEPS = 12;

export function emptyAgentDraft(): AgentDraft {
  return { name: '', displayName: '', description: '', systemPrompt: '', model: null, tools: null, delegatesTo: [], canAskMaster: true, maxSteps: String(DEFAULT_MAX_STEPS) };
}

export function draftFromProfile(p: AgentProfile): AgentDraft {
  return {
    name: p.name,
    displayName: p.displayName ?? '',
    description: p.description,
    systemPrompt: p.systemPrompt,
    model: p.model ? { ...p.model } : null,
    tools: p.tools ? { bundleIds: [...p.tools.bundleIds], toolIds: [...p.tools.toolIds] } : null,
    delegatesTo: [...p.delegatesTo],
    canAskMaster: p.canAskMaster,
    maxSteps: String(p.maxSteps),
  };
}

/** A name for a copy of `name` that no profile holds: `analyst_copy`, `analyst_copy_2`, … (at most 40 characters). */
export function copyName(name: string, taken: ReadonlySet<string>): string {
  for (let i = 1; ; i++) {
    const suffix = i === 1 ? '_copy' : `_copy_${i}`;
    const candidate = name.slice(0, 40 - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}

/** An editable copy of a profile (a built-in one, usually) under a free name. */
export function duplicateDraft(p: AgentProfile, taken: ReadonlySet<string>, copyLabel: (displayName: string) => string): AgentDraft {
  const d = draftFromProfile(p);
  return { ...d, name: copyName(p.name, taken), displayName: copyLabel(p.displayName ?? p.name) };
}

const steps = (text: string): number => (text.trim() === '' || !/^[+-]?\d+(\.\d+)?$/.test(text.trim()) ? Number.NaN : Number(text.trim()));

/** What `agents.put` gets: text trimmed (the prompt as typed), empty optional fields left out. */
export function profileFromDraft(d: AgentDraft): Record<string, unknown> {
  const displayName = d.displayName.trim();
  return {
    name: d.name.trim(),
    ...(displayName ? { displayName } : {}),
    description: d.description.trim(),
    systemPrompt: d.systemPrompt,
    ...(d.model ? { model: d.model } : {}),
    ...(d.tools ? { tools: d.tools } : {}),
    delegatesTo: d.delegatesTo,
    canAskMaster: d.canAskMaster,
    maxSteps: steps(d.maxSteps),
  };
}

export function sameDraft(a: AgentDraft, b: AgentDraft): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

interface Issue {
  path: readonly (string | number)[] | string;
  message: string;
}

/** The form field an issue's path names (`model.providerId` → model, `delegatesTo.1` → delegatesTo); null for the profile as a whole. */
export function fieldOfIssue(path: Issue['path']): AgentField | null {
  const parts = typeof path === 'string' ? path.split(/[./]/).filter(Boolean) : path.map(String);
  const head = parts[0] === 'profile' ? parts[1] : parts[0];
  return (AGENT_FIELDS as readonly string[]).includes(head ?? '') ? (head as AgentField) : null;
}

export interface MappedIssues {
  fields: Partial<Record<AgentField, string>>;
  /** Issues that name no field of the form (a key the form does not have, the whole profile). */
  other: string[];
}

/** The core's VALIDATION_FAILED details as messages per field (several on one field joined with "; "). */
export function issuesByField(details: unknown): MappedIssues {
  const out: MappedIssues = { fields: {}, other: [] };
  const issues = (details as { issues?: unknown } | null | undefined)?.issues;
  if (!Array.isArray(issues)) return out;
  for (const raw of issues as Issue[]) {
    if (!raw || typeof raw.message !== 'string') continue;
    const field = fieldOfIssue(raw.path ?? []);
    if (field === null) {
      out.other.push(raw.message);
      continue;
    }
    const prev = out.fields[field];
    if (prev === undefined) out.fields[field] = raw.message;
    else if (!prev.split('; ').includes(raw.message)) out.fields[field] = `${prev}; ${raw.message}`;
  }
  return out;
}

/**
 * The core reads a step limit that is no number as null ("expected number, received null"):
 * said instead with what was typed and what is wanted.
 */
export function explainIssues(mapped: MappedIssues, d: AgentDraft, notANumber: (typed: string) => string): MappedIssues {
  if (mapped.fields.maxSteps === undefined || !Number.isNaN(steps(d.maxSteps))) return mapped;
  return { ...mapped, fields: { ...mapped.fields, maxSteps: notANumber(d.maxSteps.trim()) } };
}

/** A check made before asking the core: a new profile must not replace an existing one. */
export function nameTaken(d: AgentDraft, existing: readonly AgentProfileView[], editing: string | null, message: (name: string) => string): string | undefined {
  const name = d.name.trim();
  if (editing !== null && name === editing) return undefined;
  return existing.some((v) => v.profile.name === name) ? message(name) : undefined;
}

/** The profiles a draft may delegate to: every other one, and any it already names that no longer exists. */
export function delegateChoices(d: AgentDraft, existing: readonly AgentProfileView[]): { name: string; label: string; missing: boolean; enabled: boolean }[] {
  const self = d.name.trim();
  const known = existing
    .filter((v) => v.profile.name !== self)
    .map((v) => ({ name: v.profile.name, label: v.profile.displayName ?? v.profile.name, missing: false, enabled: v.enabled }));
  const missing = d.delegatesTo.filter((n) => !existing.some((v) => v.profile.name === n) && n !== self).map((n) => ({ name: n, label: n, missing: true, enabled: false }));
  return [...known, ...missing];
}

export function toggleDelegate(d: AgentDraft, name: string, on: boolean): AgentDraft {
  const rest = d.delegatesTo.filter((n) => n !== name);
  return { ...d, delegatesTo: on ? [...rest, name] : rest };
}
