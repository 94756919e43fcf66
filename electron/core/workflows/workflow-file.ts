/**
 * The workflow file format (docs/workflows.md): Markdown with an optional `# Title` before
 * the first step, then one `## heading` per step, in order. A step's body (until the next
 * `## ` heading) holds its directive lines and its prompt, read by the directive parser.
 * Headings inside fenced code blocks do not count; text before the first step is a
 * description and is not run.
 */
import { parseDirectives } from '../../../shared/directives/parser';
import type { ParsedText } from '../../../shared/directives/types';
import type { WorkflowSummary } from '../../../shared/model/workflow';
import { NO_STEPS, moreErrors, stepDirectiveError } from './strings';

export interface WorkflowStepSource {
  title: string;
  /** 1-based line of the `## ` heading in the file. */
  line: number;
  body: string;
  parsed: ParsedText;
}

/** A directive error placed in the file. */
export interface WorkflowFileError {
  step: string;
  line: number;
  column: number;
  message: string;
}

export interface WorkflowFile {
  title: string;
  steps: WorkflowStepSource[];
  /** Why the file cannot run: no steps, or the first directive error (naming its step and line). */
  error?: string;
  errors: WorkflowFileError[];
}

const FENCE_RE = /^ {0,3}(`{3,}|~{3,})/;
const TITLE_RE = /^ {0,3}#(?:[ \t]+(.*?))?[ \t]*$/;
const STEP_RE = /^ {0,3}##(?:[ \t]+(.*?))?[ \t]*$/;

/** A heading's text without an ATX closing sequence (`## Step ##`). */
function headingText(raw: string | undefined): string {
  return (raw ?? '').replace(/(?:^|[ \t]+)#+$/, '').trim();
}

/** `daily-report.md` -> `daily-report`. */
export function defaultTitle(fileName: string): string {
  const base = fileName.split(/[/\\]/).pop() ?? fileName;
  return base.replace(/\.md$/i, '') || base;
}

export function parseWorkflow(text: string, fileName: string): WorkflowFile {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  let title: string | undefined;
  const heads: { title: string; line: number; from: number }[] = [];
  let fence: string | null = null;
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const f = FENCE_RE.exec(line);
    if (f) {
      const marker = f[1]!;
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      return;
    }
    if (fence !== null) return;
    const step = STEP_RE.exec(line);
    if (step) {
      heads.push({ title: headingText(step[1]) || `Step ${heads.length + 1}`, line: i + 1, from: i + 1 });
      return;
    }
    const t = TITLE_RE.exec(line);
    if (t && heads.length === 0 && title === undefined && headingText(t[1])) title = headingText(t[1]);
  });

  const steps: WorkflowStepSource[] = heads.map((h, k) => {
    const to = k + 1 < heads.length ? heads[k + 1]!.from - 1 : lines.length;
    const body = lines.slice(h.from, to).join('\n');
    return { title: h.title, line: h.line, body, parsed: parseDirectives(body) };
  });

  const errors: WorkflowFileError[] = steps.flatMap((s) =>
    // The body starts on the line after the heading.
    s.parsed.errors.map((e) => ({ step: s.title, line: s.line + e.line, column: e.column, message: e.message })),
  );
  const first = errors[0];
  const error =
    steps.length === 0 ? NO_STEPS : first ? stepDirectiveError(first.step, first.line, first.column, first.message) + moreErrors(errors.length - 1) : undefined;
  return { title: title ?? defaultTitle(fileName), steps, errors, ...(error ? { error } : {}) };
}

export function summaryOf(path: string, file: WorkflowFile): WorkflowSummary {
  return {
    path,
    title: file.title,
    steps: file.steps.map((s) => ({ title: s.title, modelNone: s.parsed.modelNone })),
    ...(file.error ? { error: file.error } : {}),
  };
}
