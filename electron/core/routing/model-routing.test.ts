import { describe, expect, it } from 'vitest';
import type { ToolView } from '../../../shared/model/tool';
import { modelArgSchema, routingFor, splitModelArgs } from './model-routing';

const tool = (argSchema: unknown = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }) =>
  ({ slug: 'readfile', argSchema }) as unknown as ToolView;

describe('routing of a model\'s tool calls', () => {
  it('follows an @tools output= first, and output=inline is a hard rule even for an allowed tool', () => {
    expect(routingFor(tool(), 'files', { output: { kind: 'variable', name: 'r' }, writeMode: 'replace' }, [])).toEqual({
      kind: 'fixed',
      destination: { kind: 'variable', name: 'r' },
      writeMode: 'replace',
    });
    expect(routingFor(tool(), 'files', { output: { kind: 'inline' } }, ['readfile'])).toEqual({ kind: 'inline' });
  });

  it('leaves the choice to the model only for tools the user allows, by slug or bundle/slug', () => {
    expect(routingFor(tool(), 'files', undefined, [])).toEqual({ kind: 'inline' });
    expect(routingFor(tool(), 'files', {}, ['writefile'])).toEqual({ kind: 'inline' });
    expect(routingFor(tool(), 'files', undefined, ['readfile'])).toEqual({ kind: 'model' });
    expect(routingFor(tool(), 'files', undefined, ['files/readfile'])).toEqual({ kind: 'model' });
    expect(routingFor(tool(), 'files', undefined, ['web/readfile'])).toEqual({ kind: 'inline' });
    // A tool with an `output` argument of its own keeps it.
    expect(routingFor(tool({ type: 'object', properties: { output: { type: 'string' } } }), 'files', undefined, ['readfile'])).toEqual({ kind: 'inline' });
  });

  it('shows the model output and write_mode only when it may route', () => {
    const schema = tool().argSchema;
    expect(modelArgSchema(schema, { kind: 'inline' })).toBe(schema);
    const given = modelArgSchema(schema, { kind: 'model' }) as { properties: Record<string, { enum?: string[] }>; required: string[] };
    expect(Object.keys(given.properties)).toEqual(['path', 'output', 'write_mode']);
    expect(given.properties.write_mode!.enum).toEqual(['append', 'replace', 'new']);
    expect(given.required).toEqual(['path']);
  });

  it('splits a call into the tool\'s arguments and the destination, refusing a bad one', () => {
    expect(splitModelArgs({ path: 'a', output: 'variable:x', write_mode: 'new' }, { kind: 'model' })).toEqual({
      args: { path: 'a' },
      destination: { kind: 'variable', name: 'x' },
      writeMode: 'new',
    });
    expect(splitModelArgs({ path: 'a' }, { kind: 'model' })).toEqual({ args: { path: 'a' }, destination: { kind: 'inline' }, writeMode: undefined });
    // Not allowed: the parameters are the tool's own business (its schema will refuse them).
    expect(splitModelArgs({ path: 'a', output: 'variable:x' }, { kind: 'inline' })).toEqual({ args: { path: 'a', output: 'variable:x' }, destination: { kind: 'inline' } });
    expect(() => splitModelArgs({ output: 'variable:' }, { kind: 'model' })).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    expect(() => splitModelArgs({ output: 'file:../../etc/passwd' }, { kind: 'model' })).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    expect(() => splitModelArgs({ output: 'file:x.md', write_mode: 'overwrite' }, { kind: 'model' })).toThrow(/write_mode must be one of/);
    expect(() => splitModelArgs({ output: 7 }, { kind: 'model' })).toThrow(/output must be a string/);
    const fixed = splitModelArgs({ path: 'a', output: 'discard' }, { kind: 'fixed', destination: { kind: 'file', path: 'o.md' } });
    expect(fixed.destination).toEqual({ kind: 'file', path: 'o.md' });
  });
});
