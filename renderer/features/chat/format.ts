/** Small pure helpers of the chat's views: durations, value text, manifest text, runs. */
import type { WorkflowRun } from '../../../shared/model/workflow';

export function formatDuration(ms: number): string {
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A value as one text: strings as they are, anything else as indented JSON. */
export function valueText(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Past either limit a value is shown folded, with a button to see all of it. */
export const LONG_VALUE_CHARS = 1500;
export const LONG_VALUE_LINES = 18;

export function isLongText(text: string): boolean {
  if (text.length > LONG_VALUE_CHARS) return true;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) if (++lines > LONG_VALUE_LINES) return true;
  return false;
}

/** The first lines of a long text, for the folded view. */
export function foldText(text: string): string {
  let end = Math.min(text.length, LONG_VALUE_CHARS);
  let lines = 0;
  for (let i = 0; i < end; i++) {
    if (text[i] === '\n' && ++lines >= LONG_VALUE_LINES) {
      end = i;
      break;
    }
  }
  return text.slice(0, end);
}

/**
 * A manifest's first line split around its destination (`[tool routed] x -> variable:r (…)`),
 * so the destination can be a link while the text stays exactly the manifest; null when the
 * destination is not written after `->`.
 */
export function splitManifest(text: string, destination: string): { before: string; destination: string; after: string } | null {
  const marker = `-> ${destination}`;
  const at = text.indexOf(marker);
  if (at === -1 || destination === '') return null;
  const start = at + 3;
  return { before: text.slice(0, start), destination, after: text.slice(start + destination.length) };
}

/** How far a run has got: a finished run beats a running one, then more steps settled. */
function progressOf(run: WorkflowRun): number {
  const settled = run.steps.filter((s) => s.status !== 'pending' && s.status !== 'running').length;
  const running = run.steps.some((s) => s.status === 'running') ? 1 : 0;
  return (run.status === 'running' ? 0 : 1_000_000) + settled * 2 + running;
}

/** Keeps the later state of a run when its answer and its progress events cross. */
export function mergeRun(prev: WorkflowRun | undefined, next: WorkflowRun): WorkflowRun {
  if (!prev || prev.runId !== next.runId) return next;
  return progressOf(next) >= progressOf(prev) ? next : prev;
}

/** The newest run of each workflow file, from the runs seen in this conversation. */
export function latestRunByPath(runs: Iterable<WorkflowRun>): Map<string, WorkflowRun> {
  const out = new Map<string, WorkflowRun>();
  for (const run of runs) {
    const seen = out.get(run.path);
    if (!seen || run.startedAt >= seen.startedAt) out.set(run.path, run);
  }
  return out;
}
