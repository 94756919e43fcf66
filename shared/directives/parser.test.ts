import { describe, expect, it } from 'vitest';
import { formatDestinationValue, formatToolToken, parseDestination, parseDirectives, quoteValue, trimBlankLines, workspacePathProblem } from './parser';
import type { Directive, ParsedText } from './types';

/** The errors as `line:column message`, and the text each one points at. */
function errorsOf(r: ParsedText, text: string): { at: string; text: string; message: string }[] {
  return r.errors.map((e) => ({ at: `${e.line}:${e.column}`, text: text.slice(e.start, e.end), message: e.message }));
}

function only<K extends Directive['kind']>(r: ParsedText, kind: K): Extract<Directive, { kind: K }>[] {
  return r.directives.filter((d): d is Extract<Directive, { kind: K }> => d.kind === kind);
}

describe('parseDirectives: the documented examples', () => {
  it('@tools with per-tool outputs on one line', () => {
    const text = '@tools web_search_tavily(output=variable:foo), code_execution(output=file:results/{today})';
    const r = parseDirectives(text);
    expect(r.errors).toEqual([]);
    expect(r.tools).toEqual([
      { name: 'web_search_tavily', output: { kind: 'variable', name: 'foo' } },
      { name: 'code_execution', output: { kind: 'file', path: 'results/{today}' } },
    ]);
    expect(r.prompt).toBe('');
    expect(r.directives).toHaveLength(1);
    expect(r.directives[0]!.raw).toBe(text);
  });

  it('@input lines with outputs, comments and the url: source', () => {
    const text = [
      '@input file:myfile (output=variable:foo)',
      '@input variable:foo (output=file:myfile)',
      '@input file:myfile2 (output=variable:foo)     # append by default',
      '@input url:https://example.com (output=variable:foo)  # future input source',
    ].join('\n');
    const r = parseDirectives(text);
    expect(r.errors).toEqual([]);
    expect(only(r, 'input').map((d) => [d.source, d.params, d.raw])).toEqual([
      [{ scheme: 'file', value: 'myfile' }, { output: { kind: 'variable', name: 'foo' } }, '@input file:myfile (output=variable:foo)'],
      [{ scheme: 'variable', value: 'foo' }, { output: { kind: 'file', path: 'myfile' } }, '@input variable:foo (output=file:myfile)'],
      [{ scheme: 'file', value: 'myfile2' }, { output: { kind: 'variable', name: 'foo' } }, '@input file:myfile2 (output=variable:foo)'],
      [{ scheme: 'url', value: 'https://example.com' }, { output: { kind: 'variable', name: 'foo' } }, '@input url:https://example.com (output=variable:foo)'],
    ]);
    expect(r.prompt).toBe('');
  });

  it('write modes on @input', () => {
    const text = [
      '@input file:myfile1 (output=variable:foo)      # append',
      '@input file:myfile2 (output=variable:foo)      # append',
      '@input file:myfile3 (output=variable:foo, write-mode=replace)',
    ].join('\n');
    const r = parseDirectives(text);
    expect(r.errors).toEqual([]);
    expect(only(r, 'input').map((d) => d.params.writeMode)).toEqual([undefined, undefined, 'replace']);
  });

  it('@tools continued on the next line after a comma', () => {
    const text = ['@tools web_search_tavily(output=variable:search_results),', '       code_execution(output=variable:analysis)'].join('\n');
    const r = parseDirectives(text);
    expect(r.errors).toEqual([]);
    expect(r.directives).toHaveLength(1);
    expect(r.tools).toEqual([
      { name: 'web_search_tavily', output: { kind: 'variable', name: 'search_results' } },
      { name: 'code_execution', output: { kind: 'variable', name: 'analysis' } },
    ]);
    expect(r.directives[0]!.span).toMatchObject({ start: 0, end: text.length, line: 1, column: 1 });
  });

  it('the Examples section', () => {
    const r = parseDirectives('@input file:myhugefile.md (output=variable:huge_file)\n@input variable:huge_file (output=file:archive/{today})');
    expect(r.errors).toEqual([]);
    expect(only(r, 'input').map((d) => d.params.output)).toEqual([
      { kind: 'variable', name: 'huge_file' },
      { kind: 'file', path: 'archive/{today}' },
    ]);
  });

  it('a tool token with write-mode', () => {
    const r = parseDirectives('@tools web_search_tavily(output=variable:foo, write-mode=replace)');
    expect(r.tools).toEqual([{ name: 'web_search_tavily', output: { kind: 'variable', name: 'foo' }, writeMode: 'replace' }]);
  });

  it('@model none', () => {
    const r = parseDirectives('@input file:a.md (output=variable:a)\n@model none');
    expect(r.errors).toEqual([]);
    expect(r.modelNone).toBe(true);
    expect(r.model).toBeUndefined();
  });
});

describe('parseDirectives: grammar', () => {
  it('accepts a space (or none) before the parameters, and keeps them', () => {
    for (const text of ['@tools readfile (output=variable:x)', '@tools readfile(output=variable:x)', '@tools readfile\t( output = variable:x )']) {
      const r = parseDirectives(text);
      expect(r.errors, text).toEqual([]);
      expect(r.tools, text).toEqual([{ name: 'readfile', output: { kind: 'variable', name: 'x' } }]);
    }
    const r = parseDirectives('@input file:a.md(output=discard)');
    expect(only(r, 'input')[0]).toMatchObject({ source: { scheme: 'file', value: 'a.md' }, params: { output: { kind: 'discard' } } });
  });

  it('keeps the prose and drops the directive lines and the blank lines they leave', () => {
    const r = parseDirectives('\n@tools readfile\n\nSummarise the notes.\n\nThen list the TODOs.\n@input file:notes.md\n\n');
    expect(r.prompt).toBe('Summarise the notes.\n\nThen list the TODOs.');
  });

  it('leading blanks before the @ are allowed; other @words and mid-line @ are prose', () => {
    const r = parseDirectives('  @tools readfile\n@alice please look\nmail me @tools x\n@toolsmith rocks\n@output file:x');
    expect(r.tools.map((t) => t.name)).toEqual(['readfile']);
    expect(r.prompt).toBe('@alice please look\nmail me @tools x\n@toolsmith rocks\n@output file:x');
  });

  it('lines in a fenced code block are never directives', () => {
    const text = 'Example:\n```md\n@tools readfile(output=variable:x)\n```\n~~~\n@model none\n~~~\n@tools grep';
    const r = parseDirectives(text);
    expect(r.tools.map((t) => t.name)).toEqual(['grep']);
    expect(r.modelNone).toBe(false);
    expect(r.prompt).toBe('Example:\n```md\n@tools readfile(output=variable:x)\n```\n~~~\n@model none\n~~~');
  });

  it('aggregates every @tools line: first-seen order, last output= and write-mode= win', () => {
    const r = parseDirectives(
      ['@tools a(output=variable:x), b', '@tools c, a(output=file:out.md)', 'text', '@tools a(write-mode=new), b(output=discard, write-mode=replace)', '@tools a'].join('\n'),
    );
    expect(r.errors).toEqual([]);
    expect(r.tools).toEqual([
      { name: 'a', output: { kind: 'file', path: 'out.md' }, writeMode: 'new' },
      { name: 'b', output: { kind: 'discard' }, writeMode: 'replace' },
      { name: 'c' },
    ]);
    expect(only(r, 'tools')).toHaveLength(4);
    expect(r.prompt).toBe('text');
  });

  it('bundle/slug names, and names the registry will judge', () => {
    const r = parseDirectives('@tools files/readfile, web-search, über_tool, v1.2');
    expect(r.errors).toEqual([]);
    expect(r.tools.map((t) => t.name)).toEqual(['files/readfile', 'web-search', 'über_tool', 'v1.2']);
  });

  it('continues a @tools line ending with a comma, over comment lines too', () => {
    const text = '@tools a, # the first\n  # more\n  b(output=variable:x),\n  c\nprose';
    const r = parseDirectives(text);
    expect(r.errors).toEqual([]);
    expect(r.tools.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(r.prompt).toBe('prose');
  });

  it('an indented line after a @tools line without a trailing comma is prose', () => {
    const r = parseDirectives('@tools a\n  b(output=variable:x)');
    expect(r.tools.map((t) => t.name)).toEqual(['a']);
    expect(r.prompt).toBe('  b(output=variable:x)');
  });

  it('comments after directives are ignored', () => {
    const r = parseDirectives('@tools a # b, c\n@model gpt-4o # the big one\n@input url:https://x.test/#frag # a comment');
    expect(r.errors).toEqual([]);
    expect(r.tools.map((t) => t.name)).toEqual(['a']);
    expect(r.model).toBe('gpt-4o');
    expect(only(r, 'input')[0]!.source).toEqual({ scheme: 'url', value: 'https://x.test/#frag' });
  });

  it('quoted values keep blanks, commas, parentheses and quotes', () => {
    const r = parseDirectives('@tools a(output=file:"my notes (1), \\"draft\\".md")\n@input file:"old notes/a b.md" (output="variable:x")');
    expect(r.errors).toEqual([]);
    expect(r.tools[0]!.output).toEqual({ kind: 'file', path: 'my notes (1), "draft".md' });
    expect(only(r, 'input')[0]).toMatchObject({ source: { scheme: 'file', value: 'old notes/a b.md' }, params: { output: { kind: 'variable', name: 'x' } } });
  });

  it('an @input path may hold parentheses, quoted or not; the parameters open after a blank or with name=', () => {
    for (const text of ['@input file:notes/a(b).md (output=variable:v)', '@input file:"notes/a(b).md" (output=variable:v)', '@input file:notes/a(b).md(output=variable:v)']) {
      const r = parseDirectives(text);
      expect(r.errors, text).toEqual([]);
      expect(only(r, 'input')[0], text).toMatchObject({ source: { scheme: 'file', value: 'notes/a(b).md' }, params: { output: { kind: 'variable', name: 'v' } } });
    }
    expect(only(parseDirectives('@input file:(draft).md'), 'input')[0]!.source).toEqual({ scheme: 'file', value: '(draft).md' });
    const plain = only(parseDirectives('@input file:a(1)(2).md  # two'), 'input')[0]!;
    expect(plain.source).toEqual({ scheme: 'file', value: 'a(1)(2).md' });
    expect(plain.params).toEqual({});
    expect(only(parseDirectives('@input file:a.md ( output = discard )'), 'input')[0]!.params).toEqual({ output: { kind: 'discard' } });
  });

  it('an @input source records which parts of its value were quoted', () => {
    expect(only(parseDirectives('@input file:"a*.md"'), 'input')[0]!.source).toEqual({ scheme: 'file', value: 'a*.md', quoted: [[0, 5]] });
    expect(only(parseDirectives('@input "file:a*.md"'), 'input')[0]!.source).toEqual({ scheme: 'file', value: 'a*.md', quoted: [[0, 5]] });
    expect(only(parseDirectives('@input file:"my notes"/*.md'), 'input')[0]!.source).toEqual({ scheme: 'file', value: 'my notes/*.md', quoted: [[0, 8]] });
    expect(only(parseDirectives('@input file:x/"[1]"/"{a,b}".md'), 'input')[0]!.source).toEqual({ scheme: 'file', value: 'x/[1]/{a,b}.md', quoted: [[2, 5], [6, 11]] });
    expect(only(parseDirectives('@input file:a*.md'), 'input')[0]!.source).toEqual({ scheme: 'file', value: 'a*.md' });
  });

  it('a value keeps a # inside parentheses', () => {
    const r = parseDirectives('@tools a(output=file:notes#1.md)');
    expect(r.tools[0]!.output).toEqual({ kind: 'file', path: 'notes#1.md' });
  });

  it('@model: the last one wins', () => {
    expect(parseDirectives('@model none\n@model gpt-4o')).toMatchObject({ modelNone: false, model: 'gpt-4o' });
    const r = parseDirectives('@model gpt-4o\n@model None');
    expect(r.modelNone).toBe(true);
    expect(r.model).toBeUndefined();
  });

  it('any scheme passes the parser (the runner judges it)', () => {
    const r = parseDirectives('@input query:select 1');
    expect(r.errors.map((e) => e.message)).toEqual([expect.stringContaining("unexpected '1'")]);
    const ok = parseDirectives('@input query:"select 1"');
    expect(ok.errors).toEqual([]);
    expect(only(ok, 'input')[0]!.source).toEqual({ scheme: 'query', value: 'select 1', quoted: [[0, 8]] });
  });

  it('handles CRLF line ends', () => {
    const text = 'hello\r\n@tools a,\r\n  b\r\nbye\r\n';
    const r = parseDirectives(text);
    expect(r.errors).toEqual([]);
    expect(r.tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(r.prompt).toBe('hello\r\nbye');
  });

  it('highlights keywords, tools, parameters, destinations and sources', () => {
    const text = '@tools a(output=variable:x)\n@input file:b.md';
    const r = parseDirectives(text);
    expect(r.highlights.map((h) => [h.kind, text.slice(h.start, h.end)])).toEqual([
      ['directive', '@tools'],
      ['tool', 'a'],
      ['param', 'output='],
      ['destination', 'variable:x'],
      ['directive', '@input'],
      ['source', 'file:b.md'],
    ]);
  });

  it('spans carry 1-based lines and columns', () => {
    const text = 'first\n  @tools  ok, bad(foo=1)';
    const r = parseDirectives(text);
    expect(errorsOf(r, text)).toEqual([{ at: '2:19', text: 'foo=1', message: "unknown parameter 'foo' for 'bad': use output= or write-mode=" }]);
    const tools = only(r, 'tools')[0]!;
    expect(tools.span).toMatchObject({ line: 2, column: 3 });
    expect(tools.tools[1]!.span).toMatchObject({ line: 2, column: 15, start: 20, end: 30 });
  });
});

describe('parseDirectives: errors', () => {
  const cases: [string, string, string, string][] = [
    ['unclosed parenthesis', '@tools a(output=variable:x', '(output=variable:x', "unbalanced parentheses: '(' is not closed on this line"],
    ['stray closing parenthesis', '@tools a)', ')', "unbalanced parentheses: ')' without '('"],
    ['unclosed on @input', '@input file:a.md (output=variable:x', '(output=variable:x', "unbalanced parentheses: '(' is not closed on this line"],
    ['unknown parameter', '@tools a(mode=replace)', 'mode=replace', "unknown parameter 'mode' for 'a': use output= or write-mode="],
    ['unknown parameter on @input', '@input file:a (fmt=json)', 'fmt=json', "unknown parameter 'fmt' for '@input file:a': use output= or write-mode="],
    ['parameter without =', '@tools a(output)', 'output', "expected '=' after 'output' (output= or write-mode=)"],
    ['not a parameter', '@tools a(=x)', '=', "expected a parameter (output= or write-mode=): got '='"],
    ['duplicate parameter', '@tools a(output=inline, output=discard)', 'output=discard', "duplicate parameter 'output' for 'a'"],
    ['duplicate write-mode', '@tools a(write-mode=new, write-mode=new)', 'write-mode=new', "duplicate parameter 'write-mode' for 'a'"],
    ['empty output=', '@tools a(output=)', 'output=', 'output= needs a destination: inline, discard, variable:NAME or file:PATH'],
    ['variable: without a name', '@tools a(output=variable:)', 'variable:', 'variable: needs a buffer name (variable:NAME)'],
    ['invalid buffer name', '@tools a(output=variable:-x)', 'variable:-x', "invalid buffer name '-x': letters, digits, _ . - (at most 128, not starting with . or -)"],
    ['buffer name with a slash', '@input file:a (output=variable:a/b)', 'variable:a/b', "invalid buffer name 'a/b': letters, digits, _ . - (at most 128, not starting with . or -)"],
    ['file: without a path', '@tools a(output=file:)', 'file:', 'file: needs a path relative to the workspace (file:PATH)'],
    ['file: leaving the workspace', '@tools a(output=file:../../etc/passwd)', 'file:../../etc/passwd', "file destinations must be relative to the workspace: '..' may not leave it (got '../../etc/passwd')"],
    ['file: absolute', '@tools a(output=file:/etc/passwd)', 'file:/etc/passwd', "file destinations must be relative to the workspace: got '/etc/passwd'"],
    ['file: a Windows drive', '@input variable:x (output=file:C:\\out.txt)', 'file:C:\\out.txt', "file destinations must be relative to the workspace: got 'C:\\out.txt'"],
    ['unknown destination kind', '@tools a(output=buffer:x)', 'buffer:x', "unknown destination kind 'buffer:': use inline, discard, variable:NAME or file:PATH"],
    ['unknown destination', '@tools a(output=somewhere)', 'somewhere', "unknown destination 'somewhere': use inline, discard, variable:NAME or file:PATH"],
    ['bad write-mode', '@tools a(output=variable:x, write-mode=overwrite)', 'overwrite', "bad write-mode 'overwrite': use append, replace or new"],
    ['empty write-mode', '@tools a(write-mode=)', 'write-mode=', 'write-mode= needs a value: append, replace or new'],
    ['empty @tools', '@tools', '@tools', '@tools needs at least one tool, e.g. @tools readfile'],
    ['@tools with a comment only', '@tools   # nothing', '@tools', '@tools needs at least one tool, e.g. @tools readfile'],
    ['trailing comma at the end', '@tools a,', ',', 'this @tools line ends with a comma but no tool follows on the next line'],
    ['trailing comma before a directive', '@tools a,\n@model none', ',', 'this @tools line ends with a comma but no tool follows on the next line'],
    ['tools without commas', '@tools a b', 'b', "separate tools with commas: got 'b' after a tool"],
    ['not a tool name', '@tools (output=inline)', '(', "expected a tool name: got '('"],
    ['@input without a source', '@input', '@input', '@input needs a source, e.g. @input file:notes.md'],
    ['@input with parameters only', '@input (output=variable:x)', '@input', '@input needs a source, e.g. @input file:notes.md'],
    ['@input without a scheme', '@input notes.md', 'notes.md', "@input source 'notes.md' needs a scheme: file:PATH, variable:NAME or url:URL"],
    ['@input with an empty value', '@input file:', 'file:', '@input file: needs a value after the colon'],
    ['@input file: leaving the workspace', '@input file:../../etc/passwd', 'file:../../etc/passwd', "file sources must be relative to the workspace: '..' may not leave it (got '../../etc/passwd')"],
    ['@input file: absolute', '@input file:/etc/passwd (output=variable:x)', 'file:/etc/passwd', "file sources must be relative to the workspace: got '/etc/passwd'"],
    ['@input variable: with a bad name', '@input variable:.x', 'variable:.x', "invalid buffer name '.x': letters, digits, _ . - (at most 128, not starting with . or -)"],
    ['@input with an unquoted blank', '@input file:my notes.md', 'notes.md', `unexpected 'notes.md' after the @input directive (quote a value that has blanks: "my file.md")`],
    ['unterminated quote', '@tools a(output=file:"x.md)', 'file:"x.md)', 'unterminated quote: close it with "'],
    ['@model without a value', '@model  # none', '@model', '@model needs a value: a model name, or none'],
    ['@model with two words', '@model gpt 4', '4', `unexpected '4' after the @model value (quote a value that has blanks: "my file.md")`],
  ];
  it.each(cases)('%s', (_, text, at, message) => {
    const r = parseDirectives(text);
    expect(errorsOf(r, text).map((e) => [e.text, e.message])).toContainEqual([at, message]);
    for (const e of r.errors) expect(r.highlights).toContainEqual({ start: e.start, end: e.end, kind: 'error' });
  });

  it('reports every error of a text, in order, and keeps parsing after one', () => {
    const text = '@tools a(output=variable:), b(foo=1), c(output=variable:ok)\n@input file:../x\n@model';
    const r = parseDirectives(text);
    expect(errorsOf(r, text).map((e) => e.at)).toEqual(['1:17', '1:31', '2:8', '3:1']);
    expect(r.tools.find((t) => t.name === 'c')).toEqual({ name: 'c', output: { kind: 'variable', name: 'ok' } });
  });
});

describe('parseDestination (the + palette output field)', () => {
  it('accepts the four kinds', () => {
    expect(parseDestination('inline')).toEqual({ ok: true, destination: { kind: 'inline' } });
    expect(parseDestination(' discard ')).toEqual({ ok: true, destination: { kind: 'discard' } });
    expect(parseDestination('variable:results')).toEqual({ ok: true, destination: { kind: 'variable', name: 'results' } });
    expect(parseDestination('file:out/{today}.md')).toEqual({ ok: true, destination: { kind: 'file', path: 'out/{today}.md' } });
    expect(parseDestination('file:"a b, c.md"')).toEqual({ ok: true, destination: { kind: 'file', path: 'a b, c.md' } });
    expect(parseDestination('file:a, b.md')).toEqual({ ok: true, destination: { kind: 'file', path: 'a, b.md' } });
  });

  it('refuses the malformed ones with a message', () => {
    expect(parseDestination('')).toEqual({ ok: false, message: expect.stringContaining('needs a destination') });
    expect(parseDestination('variable:')).toEqual({ ok: false, message: expect.stringContaining('needs a buffer name') });
    expect(parseDestination('variable:a b')).toEqual({ ok: false, message: expect.stringContaining('invalid buffer name') });
    expect(parseDestination('file:')).toEqual({ ok: false, message: expect.stringContaining('needs a path') });
    expect(parseDestination('file:../../etc/passwd')).toEqual({ ok: false, message: expect.stringContaining('relative to the workspace') });
    expect(parseDestination('file:/etc/passwd')).toEqual({ ok: false, message: expect.stringContaining('relative to the workspace') });
    expect(parseDestination('mail:me')).toEqual({ ok: false, message: expect.stringContaining("unknown destination kind 'mail:'") });
    expect(parseDestination('file:"x')).toEqual({ ok: false, message: expect.stringContaining('unterminated quote') });
  });
});

describe('helpers', () => {
  it('workspacePathProblem: .. anywhere, absolute, NUL', () => {
    expect(workspacePathProblem('a/b.md')).toBeNull();
    expect(workspacePathProblem('a/..b/c')).toBeNull();
    expect(workspacePathProblem('a/../b')).toMatch(/'\.\.' may not leave it/);
    expect(workspacePathProblem('a\\..\\..\\b')).toMatch(/'\.\.' may not leave it/);
    expect(workspacePathProblem('\\\\server\\share')).toMatch(/must be relative/);
    expect(workspacePathProblem('a\0b')).toMatch(/NUL/);
  });

  it('formats tokens and destinations that read back the same', () => {
    expect(formatToolToken({ name: 'a' })).toBe('a');
    expect(formatToolToken({ name: 'a', output: { kind: 'file', path: 'x y.md' }, writeMode: 'new' })).toBe('a(output=file:"x y.md", write-mode=new)');
    expect(formatDestinationValue({ kind: 'variable', name: 'v' })).toBe('variable:v');
    expect(quoteValue('a"b\\c d')).toBe('"a\\"b\\\\c d"');
  });

  it('trimBlankLines', () => {
    expect(trimBlankLines('\n \n  a\n\nb  \n\t\n')).toBe('  a\n\nb  ');
    expect(trimBlankLines(' \t ')).toBe('');
    expect(trimBlankLines('a\r\n\r\n')).toBe('a');
  });
});
