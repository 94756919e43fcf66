import { describe, expect, it } from 'vitest';
import { parseDirectives } from '../../../shared/directives/parser';
import { routeDefaultsFor, toolEntryFor } from './route-defaults';

const toolsOf = (text: string) => parseDirectives(text).tools;

describe('routeDefaultsFor', () => {
  it('is inline (empty) and append with no @tools line', () => {
    expect(routeDefaultsFor(toolsOf('just a message'), 'readfile')).toEqual({ output: '', writeMode: 'append' });
  });

  it('takes the output= and write-mode= of the tool', () => {
    const tools = toolsOf('@tools grep, readfile(output=variable:results, write-mode=replace)\nhello');
    expect(routeDefaultsFor(tools, 'readfile')).toEqual({ output: 'variable:results', writeMode: 'replace' });
    expect(routeDefaultsFor(tools, 'grep')).toEqual({ output: '', writeMode: 'append' });
  });

  it('lets the last @tools line win', () => {
    const tools = toolsOf('@tools readfile(output=variable:a)\n@tools readfile(output=file:out/{today}.md)');
    expect(routeDefaultsFor(tools, 'readfile').output).toBe('file:out/{today}.md');
  });

  it('quotes a file path that needs it, as a directive would', () => {
    const tools = toolsOf('@tools readfile(output=file:"my notes.md")');
    expect(routeDefaultsFor(tools, 'readfile').output).toBe('file:"my notes.md"');
  });

  it('shows an explicit inline as empty and keeps discard', () => {
    expect(routeDefaultsFor(toolsOf('@tools readfile(output=inline)'), 'readfile').output).toBe('');
    expect(routeDefaultsFor(toolsOf('@tools readfile(output=discard)'), 'readfile').output).toBe('discard');
  });

  it('prefers the tool of its own bundle, then the bare slug, then another bundle', () => {
    const tools = toolsOf('@tools files/readfile(output=variable:own), other/readfile(output=variable:theirs), readfile(output=variable:bare)');
    expect(routeDefaultsFor(tools, 'readfile', 'files').output).toBe('variable:own');
    expect(routeDefaultsFor(tools, 'readfile', 'nope').output).toBe('variable:bare');
    expect(routeDefaultsFor(toolsOf('@tools other/readfile(output=variable:theirs)'), 'readfile').output).toBe('variable:theirs');
  });

  it('does not match a slug that only ends the same', () => {
    expect(toolEntryFor(toolsOf('@tools myreadfile(output=variable:x)'), 'readfile')).toBeUndefined();
    expect(toolEntryFor(toolsOf('@tools b/myreadfile(output=variable:x)'), 'readfile')).toBeUndefined();
  });
});
