import { describe, expect, it } from 'vitest';
import { toolRunTitle } from './titles';

const readfile = {
  type: 'object',
  properties: { path: { type: 'string' }, maxBytes: { type: 'integer', default: 1048576 }, encoding: { type: 'string', default: 'utf8' } },
  required: ['path'],
};

describe('toolRunTitle', () => {
  it('names a palette run by the argument the user gave, not a default the form filled in first', () => {
    // The form starts with the defaults; the typed path comes last in the object.
    expect(toolRunTitle('Read file', { maxBytes: 1048576, encoding: 'utf8', path: 'notes/plan.md' }, readfile)).toBe('Read file: notes/plan.md');
  });

  it('takes required arguments first, in the schema’s order, then the others; a changed default counts as given', () => {
    const schema = {
      type: 'object',
      properties: { time: { type: 'string' }, fromZone: { type: 'string', default: 'UTC' }, toZone: { type: 'string' } },
      required: ['toZone'],
    };
    expect(toolRunTitle('Convert time zone', { fromZone: 'UTC', toZone: 'Europe/Oslo' }, schema)).toBe('Convert time zone: Europe/Oslo');
    expect(toolRunTitle('Read file', { encoding: 'latin1', maxBytes: 1048576 }, readfile)).toBe('Read file: latin1');
    // Only defaults: one of them still says something.
    expect(toolRunTitle('List folder', { path: '.' }, { type: 'object', properties: { path: { type: 'string', default: '.' } } })).toBe('List folder: .');
  });

  it('without a schema, the first short value; nothing short, the tool alone', () => {
    expect(toolRunTitle('Weather', { city: 'Oslo', days: 3 })).toBe('Weather: Oslo');
    expect(toolRunTitle('Weather', { where: { lat: 1 } })).toBe('Weather');
    expect(toolRunTitle('Weather', 'Oslo')).toBe('Weather');
    expect(toolRunTitle('Echo', { text: 'x'.repeat(100) })).toBe(`Echo: ${'x'.repeat(59)}…`);
  });
});
