/**
 * The workflow file format (docs/workflows.md): Markdown with an optional `# Title` before
 * the first step, then one `## heading` per step, in order. A step's body (until the next
 * `## ` heading) holds its directive lines and its prompt, read by the directive parser.
 * Headings inside fenced code blocks do not count; text before the first step is a
 * description and is not run.
 *
 * The file may open with YAML front matter between `---` lines; it sets the extraction
 * thresholds of oversized outputs for the run's model turns:
 *
 *     ---
 *     extraction:
 *       maxChunksForFullMode: 3
 *     ---
 */
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { ExtractionOverridesSchema, type ExtractionOverrides } from '../../../shared/model/settings';
import { parseDirectives } from '../../../shared/directives/parser';
import type { ParsedText } from '../../../shared/directives/types';
import type { WorkflowSummary } from '../../../shared/model/workflow';
import { NO_STEPS, frontMatterError, moreErrors, stepDirectiveError } from './strings';

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
  /** From the front matter: extraction thresholds over the conversation's for the run's turns. */
  extraction?: ExtractionOverrides;
}

const FrontMatterSchema = z.object({ extraction: ExtractionOverridesSchema.optional() }).strict();

interface FrontMatter {
  /** How many lines (both `---` included) it takes; 0 when the file has none. */
  lines: number;
  extraction?: ExtractionOverrides;
  error?: { line: number; message: string };
}

/** The front matter at the top of the file, when the first line is `---` and a later one closes it. */
function frontMatter(lines: string[]): FrontMatter {
  if (lines[0]?.replace(/\r$/, '').trimEnd() !== '---') return { lines: 0 };
  const end = lines.findIndex((l, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(l.replace(/\r$/, '')));
  if (end < 0) return { lines: 0 };
  const yamlText = lines.slice(1, end).join('\n');
  const doc = parseDocument(yamlText, { prettyErrors: false, uniqueKeys: true });
  const yamlError = doc.errors[0];
  if (yamlError) {
    const line = 2 + (yamlError.linePos?.[0]?.line ?? 1) - 1;
    return { lines: end + 1, error: { line, message: yamlError.message.split('\n')[0]! } };
  }
  const value: unknown = doc.toJS() ?? {};
  const parsed = FrontMatterSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.join('.');
    const what = issue.code === 'unrecognized_keys' ? `unknown ${issue.keys.length === 1 ? 'key' : 'keys'} ${issue.keys.map((k) => `'${k}'`).join(', ')} (known: extraction.maxChunksForFullMode, extraction.avgLineBytesForFullMode, extraction.overlapPercent)` : issue.message;
    return { lines: end + 1, error: { line: 1, message: at ? `${at}: ${what}` : what } };
  }
  return { lines: end + 1, ...(parsed.data.extraction ? { extraction: parsed.data.extraction } : {}) };
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
  const front = frontMatter(lines);
  // Blanked, not removed: line numbers stay those of the file.
  for (let i = 0; i < front.lines; i++) lines[i] = '';
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
  const error = front.error
    ? frontMatterError(front.error.line, front.error.message)
    : steps.length === 0
      ? NO_STEPS
      : first
        ? stepDirectiveError(first.step, first.line, first.column, first.message) + moreErrors(errors.length - 1)
        : undefined;
  return { title: title ?? defaultTitle(fileName), steps, errors, ...(error ? { error } : {}), ...(front.extraction ? { extraction: front.extraction } : {}) };
}

export function summaryOf(path: string, file: WorkflowFile): WorkflowSummary {
  return {
    path,
    title: file.title,
    steps: file.steps.map((s) => ({ title: s.title, modelNone: s.parsed.modelNone })),
    ...(file.error ? { error: file.error } : {}),
  };
}
