import { describe, expect, it } from 'vitest';
import { DEFAULT_SCRIPT_SETTINGS, SCRIPT_LIMITS } from '../../../../shared/model/script-tool';
import { buildDraft, draftFromTool, emptyDraft, fieldOfPath, serverErrors } from '../editor/tool-draft';
import { sampleTool } from '../../../testing/render';
import {
  appendLine,
  applyTemplate,
  argSchemaForTypes,
  argSchemaUnwritten,
  buildScript,
  EMPTY_SCRIPT_FIELDS,
  finalLogs,
  isNotTrusted,
  isSyntaxProblem,
  limitPlaceholder,
  liveLogLine,
  MAX_LIVE_LINES,
  outputSizeHint,
  scriptErrorHelp,
  splitProblems,
} from './script-draft';

const SOURCE = 'function run(args, ctx) { return args; }';

describe('a script draft as a body', () => {
  it('sends the source and each limit that is given; empty limits are left to Settings', () => {
    expect(buildScript({ ...EMPTY_SCRIPT_FIELDS, scriptSource: SOURCE })).toEqual({ script: { source: SOURCE }, errors: {} });
    expect(buildScript({ scriptSource: SOURCE, scriptTimeLimitMs: ' 2000 ', scriptMemoryLimitMb: '32', scriptMaxOutputBytes: '4096' })).toEqual({
      script: { source: SOURCE, timeLimitMs: 2000, memoryLimitMb: 32, maxOutputBytes: 4096 },
      errors: {},
    });
  });

  it('refuses a limit that is not a whole number or is out of its bounds, on its own field, and leaves it out', () => {
    const built = buildScript({ scriptSource: SOURCE, scriptTimeLimitMs: '1.5', scriptMemoryLimitMb: '4', scriptMaxOutputBytes: 'lots' });
    expect(built.script).toEqual({ source: SOURCE });
    expect(built.errors.scriptTimeLimitMs).toBe('must be a whole number, e.g. 5000');
    expect(built.errors.scriptMemoryLimitMb).toBe(`must be between ${SCRIPT_LIMITS.memoryLimitMb.min} and 1,024 MB`);
    expect(built.errors.scriptMaxOutputBytes).toBe('must be a whole number, e.g. 1048576');
  });

  it('builds a script tool’s put body through the tool draft, its problems on the script fields', () => {
    const d = { ...emptyDraft(), slug: 'sum', type: 'script' as const, scriptSource: SOURCE, scriptTimeLimitMs: '700000' };
    const built = buildDraft(d);
    expect(built.body).toMatchObject({ type: 'script', script: { source: SOURCE } });
    expect(built.body.http).toBeUndefined();
    expect(built.errors.scriptTimeLimitMs).toEqual(['must be between 10 and 600,000 ms']);
    expect(built.errors.form).toBeUndefined();
    // An empty script: the shared schema's own sentence, on the source.
    expect(buildDraft({ ...d, scriptSource: '', scriptTimeLimitMs: '' }).errors.scriptSource?.[0]).toMatch(/the script is empty/);
  });

  it('puts the server’s refusal of a script field on that field', () => {
    expect(fieldOfPath(['script', 'source']).field).toBe('scriptSource');
    expect(fieldOfPath(['script', 'maxOutputBytes']).field).toBe('scriptMaxOutputBytes');
    const errs = serverErrors({ code: 'VALIDATION_FAILED', message: 'invalid', details: { issues: [{ path: 'body.script.memoryLimitMb', message: 'too big' }] } });
    expect(errs.scriptMemoryLimitMb).toEqual(['too big']);
  });

  it('opens a saved script tool with its source and limits as typed, for a new version too', () => {
    const tool = sampleTool({ type: 'script', local: undefined, script: { sha256: 'a'.repeat(64), timeLimitMs: 900 } });
    const d = draftFromTool(tool, { newVersion: true, scriptSource: SOURCE });
    expect(d).toMatchObject({ version: '', type: 'script', scriptSource: SOURCE, scriptTimeLimitMs: '900', scriptMemoryLimitMb: '', scriptMaxOutputBytes: '' });
  });
});

describe('limits’ placeholders', () => {
  it('shows the Settings default, and the output limit as a size', () => {
    expect(limitPlaceholder('timeLimitMs', DEFAULT_SCRIPT_SETTINGS)).toBe('5000 (default)');
    expect(limitPlaceholder('timeLimitMs', undefined)).toBe('');
    expect(outputSizeHint('', DEFAULT_SCRIPT_SETTINGS)).toBe('= 1.0 MiB');
    expect(outputSizeHint('2048', DEFAULT_SCRIPT_SETTINGS)).toBe('= 2.0 KiB');
    expect(outputSizeHint('x', DEFAULT_SCRIPT_SETTINGS)).toBe('');
  });
});

describe('templates', () => {
  const template = { title: 'Compute', source: SOURCE, argSchema: { type: 'object', properties: { n: { type: 'number' } } } };

  it('fill in the argument schema while the draft has none written', () => {
    const applied = applyTemplate(emptyDraft().argSchema, template);
    expect(applied.scriptSource).toBe(SOURCE);
    expect(JSON.parse(applied.argSchema!)).toEqual(template.argSchema);
    expect(applied.keptSchema).toBe(false);
  });

  it('keep a schema the person wrote (or is writing)', () => {
    const written = JSON.stringify({ type: 'object', properties: { city: { type: 'string' } } });
    expect(applyTemplate(written, template)).toEqual({ scriptSource: SOURCE, keptSchema: true });
    expect(argSchemaUnwritten('{"type": "obj')).toBe(false);
    expect(argSchemaUnwritten('{}')).toBe(true);
    expect(argSchemaUnwritten('{"type": "object", "description": "mine"}')).toBe(false);
  });

  it('type Args from the last argument schema that parsed', () => {
    const before = { type: 'object', properties: { a: { type: 'string' } } };
    expect(argSchemaForTypes('{"type": "object"', before)).toBe(before);
    expect(argSchemaForTypes('[1]', before)).toBe(before);
    expect(argSchemaForTypes('{"type": "object"}', before)).toEqual({ type: 'object' });
  });
});

describe('the script editor’s markers', () => {
  const at = (code: string | undefined, severity: 'error' | 'warning' = 'error') => ({ line: 1, column: 1, message: 'm', severity, ...(code ? { code } : {}) });

  it('stop a save only when the script does not parse', () => {
    expect(isSyntaxProblem(at('1005'))).toBe(true);
    expect(isSyntaxProblem(at('8010'))).toBe(true);
    expect(isSyntaxProblem(at('2339'))).toBe(false);
    expect(isSyntaxProblem(at('8024'))).toBe(false);
    expect(isSyntaxProblem(at('1005', 'warning'))).toBe(false);
    expect(isSyntaxProblem(at(undefined))).toBe(false);
    const split = splitProblems([at('1005'), at('2304'), at('7006', 'warning')]);
    expect(split.syntax.map((m) => m.code)).toEqual(['1005']);
    expect(split.other.map((m) => m.code)).toEqual(['2304', '7006']);
  });
});

describe('a run’s log lines', () => {
  const line = { level: 'log' as const, text: 'hello', atMs: 3 };

  it('takes live lines of this call only', () => {
    expect(liveLogLine({ invocationId: 'a', kind: 'log', data: line }, 'a')).toEqual(line);
    expect(liveLogLine({ invocationId: 'b', kind: 'log', data: line }, 'a')).toBeNull();
    expect(liveLogLine({ invocationId: 'a', kind: 'sse', data: line }, 'a')).toBeNull();
    expect(liveLogLine({ invocationId: 'a', kind: 'log', data: { text: 'no level' } }, 'a')).toBeNull();
  });

  it('keeps the live lines to the bound, dropping the oldest', () => {
    let lines: ReturnType<typeof appendLine> = [];
    for (let i = 0; i < MAX_LIVE_LINES + 5; i++) lines = appendLine(lines, { ...line, text: String(i) });
    expect(lines).toHaveLength(MAX_LIVE_LINES);
    expect(lines[0]!.text).toBe('5');
  });

  it('reads the answer’s lines from the result or from the error’s details', () => {
    expect(finalLogs({ result: { logs: [line, { bad: true }] } })).toEqual([line]);
    expect(finalLogs({ error: { details: { logs: [line] } } })).toEqual([line]);
    expect(finalLogs({ result: {} })).toBeUndefined();
  });
});

describe('what a failed script call says to do', () => {
  it('has words for each way a script call ends badly', () => {
    expect(scriptErrorHelp({ code: 'TIMEOUT', details: { limit: 'time' } })?.title).toMatch(/time limit/);
    expect(scriptErrorHelp({ code: 'PAYLOAD_TOO_LARGE', details: { limit: 'memory' } })?.fix).toMatch(/raise the memory limit/);
    expect(scriptErrorHelp({ code: 'PAYLOAD_TOO_LARGE', details: { limit: 'output', bytes: 5000 } })?.fix).toMatch(/raise the output limit/);
    expect(scriptErrorHelp({ code: 'VALIDATION_FAILED', details: { toolError: true, phase: 'load', stack: 'SyntaxError: unexpected token\n    at <eval> (script.js:3)' } })).toMatchObject({
      title: 'The script does not load.',
      stack: expect.stringContaining('script.js:3'),
    });
    expect(scriptErrorHelp({ code: 'VALIDATION_FAILED', details: { limit: 'stack' } })?.title).toMatch(/recursed too deeply/);
    // No run function; a result that is not JSON.
    expect(scriptErrorHelp({ code: 'VALIDATION_FAILED' })?.fix).toMatch(/function run\(args, ctx\)/);
    expect(scriptErrorHelp({ code: 'VALIDATION_FAILED', details: { toolError: true } })?.fix).toMatch(/JSON value/);
    expect(scriptErrorHelp({ code: 'UNAVAILABLE', details: { toolError: true, stack: 'Error: boom\n    at run (script.js:2)' } })).toMatchObject({ title: 'The script threw an error.', stack: expect.stringContaining('at run') });
    expect(scriptErrorHelp({ code: 'NOT_FOUND', details: { toolError: true, stack: 'ToolError: ctx.call: no tool' } })?.title).toBe('The script threw an error.');
    expect(scriptErrorHelp({ code: 'FORBIDDEN', details: { host: '10.0.0.1' } })?.fix).toMatch(/allowed hosts/);
    expect(scriptErrorHelp({ code: 'CANCELLED' })?.title).toMatch(/cancelled/);
  });

  it('leaves the arguments’ refusals, other tools’ failures and an untrusted script to their own views', () => {
    expect(scriptErrorHelp({ code: 'VALIDATION_FAILED', details: { phase: 'args', issues: [] } })).toBeNull();
    expect(scriptErrorHelp({ code: 'UNAVAILABLE', details: {} })).toBeNull();
    const untrusted = { code: 'FORBIDDEN' as const, details: { rule: 'script-not-trusted' } };
    expect(isNotTrusted(untrusted)).toBe(true);
    expect(scriptErrorHelp(untrusted)).toBeNull();
    expect(scriptErrorHelp({ code: 'NOT_FOUND' })).toBeNull();
  });
});
