/**
 * The read-grep strategy (docs/design/tool-outputs.md, decision 8): a sub-agent with only `Read`
 * and `Grep` over the session's folder. The handle is the filename; a name with a separator,
 * `..`, or that is not a stored output of this session is refused (told back to the sub-agent),
 * so no path leaves the folder. Its final report is accepted; a sub-agent that stops without one,
 * or runs out of steps (a synthetic report), has failed.
 */
import fs from 'node:fs/promises';
import { AppError, isAppError } from '../../../shared/errors';
import type { ModelMessage, ModelToolSpec } from '../llm/types';
import { readLineRange, type Meta } from '../routing/buffer-index';
import { searchPlan } from '../routing/buffer-search-plan';
import { isNotFound, parseFinalReport } from './final-report';
import { readGrepPrompt } from './prompts';
import type { StoredOutput } from './store';
import { StrategyFailed, type ExtractContext, type StrategyResult } from './types';

export const READ_LINES_DEFAULT = 200;

export const READ_TOOL: ModelToolSpec = {
  name: 'Read',
  description: 'Reads lines of a file in the root directory. The file name is the handle. Lines are numbered from 1.',
  parameters: {
    type: 'object',
    additionalProperties: false,
    required: ['file'],
    properties: {
      file: { type: 'string', description: 'The file name: the handle, exactly as given.' },
      startLine: { type: 'integer', minimum: 1, description: 'First line to read (default 1).' },
      endLine: { type: 'integer', minimum: 1, description: `Last line to read (default startLine + ${READ_LINES_DEFAULT - 1}).` },
    },
  },
};

export const GREP_TOOL: ModelToolSpec = {
  name: 'Grep',
  description: 'Searches a file in the root directory line by line and answers the matching lines with their numbers. The file name is the handle.',
  parameters: {
    type: 'object',
    additionalProperties: false,
    required: ['file', 'pattern'],
    properties: {
      file: { type: 'string', description: 'The file name: the handle, exactly as given.' },
      pattern: { type: 'string', description: 'A regular expression (JavaScript syntax), or plain text with regex=false.' },
      regex: { type: 'boolean', description: 'Treat pattern as a regular expression (default true).' },
      ignoreCase: { type: 'boolean', description: 'Ignore case (default false).' },
      contextLines: { type: 'integer', minimum: 0, maximum: 10, description: 'Lines of context around each match (default 0).' },
      maxMatches: { type: 'integer', minimum: 1, maximum: 500, description: 'At most this many matches (default 50).' },
    },
  },
};

/** A stored output seen as a buffer's metadata, so the buffers' range reads and search serve it. */
export function asMeta(o: StoredOutput): Meta {
  return {
    version: 1,
    name: o.handle,
    createdAt: o.createdAt,
    updatedAt: o.createdAt,
    source: o.toolName,
    chars: o.chars,
    bytes: o.bytes,
    newlines: o.newlines,
    endsWithNewline: o.lines === o.newlines && o.chars > 0,
    checkpoints: o.checkpoints,
    fileSize: o.bytes,
    fileMtimeMs: 0,
  };
}

/** The stored output a sub-agent's `file` names, or a refusal it is told. */
function resolveFile(ctx: ExtractContext, file: unknown): StoredOutput {
  if (typeof file !== 'string' || file === '') throw new AppError('VALIDATION_FAILED', 'file is required: the handle, exactly as given');
  if (file.includes('/') || file.includes('\\') || file.includes('..') || file.includes('\0')) {
    throw new AppError('FORBIDDEN', `"${file.slice(0, 200)}" is refused: only files in the root directory can be read, by their plain name (the handle)`);
  }
  const o = ctx.store.get(file);
  if (!o || o.sessionId !== ctx.output.sessionId) throw new AppError('NOT_FOUND', `there is no file "${file.slice(0, 200)}" in the root directory; the file to read is ${ctx.output.handle}`);
  return o;
}

export async function runReadTool(ctx: ExtractContext, args: Record<string, unknown>): Promise<string> {
  const o = resolveFile(ctx, args.file);
  const start = typeof args.startLine === 'number' ? args.startLine : 1;
  const end = typeof args.endLine === 'number' ? args.endLine : start + READ_LINES_DEFAULT - 1;
  const meta = asMeta(o);
  const last = Math.min(end, Math.max(o.lines, 1));
  if (start > Math.max(o.lines, 1)) return `the file has ${o.lines} lines: startLine ${start} is past the end`;
  const fh = await fs.open(ctx.store.filePath(o), 'r');
  try {
    const r = await readLineRange(fh, meta, start, last, 'Read');
    const lines = r.text.split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '' ) lines.pop();
    const numbered = lines.map((l, i) => `${r.startLine + i}\t${l.length > 2000 ? l.slice(0, 2000) + '…' : l}`).join('\n');
    return ctx.store.redact(`${o.handle}: lines ${r.startLine}-${r.endLine} of ${r.totalLines}\n${numbered}`);
  } finally {
    await fh.close();
  }
}

export async function runGrepTool(ctx: ExtractContext, args: Record<string, unknown>): Promise<string> {
  const o = resolveFile(ctx, args.file);
  const plan = searchPlan({
    query: args.pattern as string,
    regex: args.regex !== false,
    caseSensitive: args.ignoreCase !== true,
    contextLines: (args.contextLines as number | undefined) ?? 0,
    maxMatches: (args.maxMatches as number | undefined) ?? 50,
  });
  const fh = await fs.open(ctx.store.filePath(o), 'r');
  try {
    const r = await ctx.searcher.search(
      { fd: fh.fd, bytes: o.bytes, totalChars: o.chars, totalLines: o.lines, checkpoints: [0, 0, 1, ...o.checkpoints], ...plan, maxLineChars: 2000 },
      ctx.signal,
    );
    if (r.matches.length === 0) return `no line of ${o.handle} matches ${JSON.stringify(plan.query)}`;
    const rows = r.matches.map((mt) => {
      const before = mt.before.map((l, i) => `${mt.line - mt.before.length + i}-\t${l}`);
      const after = mt.after.map((l, i) => `${mt.line + 1 + i}-\t${l}`);
      return [...before, `${mt.line}:\t${mt.text}`, ...after].join('\n');
    });
    const more = r.more ? `\n(more matches: raise maxMatches or narrow the pattern)` : '';
    return ctx.store.redact(`${r.matches.length} matching lines in ${o.handle}:\n${rows.join('\n')}${more}`);
  } finally {
    await fh.close();
  }
}

export async function runReadGrep(ctx: ExtractContext): Promise<StrategyResult> {
  if (!ctx.model) throw new StrategyFailed('no model is set up for this conversation');
  const m = ctx.model;
  const o = ctx.output;
  const rootDir = ctx.store.filePath(o).slice(0, -o.handle.length - 1);
  const messages: ModelMessage[] = [
    { role: 'system', text: readGrepPrompt({ toolName: o.toolName, argsJson: o.argsJson, handle: o.handle, rootDir, extract: ctx.extract, nonce: ctx.nonce }) },
    { role: 'user', text: `Extract from ${o.handle} (${o.bytes} bytes, ${o.lines} lines): ${ctx.extract}` },
  ];
  const totals = { modelCalls: 0, tokensIn: 0, tokensOut: 0 };
  for (let step = 0; step < ctx.policy.readGrepMaxSteps; step++) {
    let r;
    try {
      r = await m.client.step({ model: m.model, messages, tools: [READ_TOOL, GREP_TOOL], maxOutputTokens: m.maxOutputTokens }, () => {}, ctx.signal);
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      throw new StrategyFailed(`the sub-agent's model call failed: ${(e as Error).message}`);
    }
    totals.modelCalls++;
    totals.tokensIn += r.usage?.inputTokens ?? 0;
    totals.tokensOut += r.usage?.outputTokens ?? 0;
    if (r.toolCalls.length === 0) {
      const report = parseFinalReport(r.text, ctx.nonce);
      if (report === undefined) throw new StrategyFailed('the sub-agent stopped without a final report with this session\'s nonce');
      return { text: report, notFound: isNotFound(report), ...totals };
    }
    messages.push({ role: 'assistant', text: r.text, toolCalls: r.toolCalls });
    for (const call of r.toolCalls) {
      let text: string;
      let isError = false;
      try {
        const args = JSON.parse(call.argsText || '{}') as Record<string, unknown>;
        if (call.name === 'Read') text = await runReadTool(ctx, args);
        else if (call.name === 'Grep') text = await runGrepTool(ctx, args);
        else throw new AppError('NOT_FOUND', `there is no tool ${call.name}: only Read and Grep`);
      } catch (e) {
        if (ctx.signal.aborted) throw e;
        isError = true;
        text = isAppError(e) || e instanceof Error ? e.message : String(e);
      }
      messages.push({ role: 'tool', callId: call.callId, name: call.name, text, ...(isError ? { isError } : {}) });
    }
  }
  throw new StrategyFailed(`the sub-agent used all ${ctx.policy.readGrepMaxSteps} steps without a final report (a synthetic report is not accepted)`);
}
