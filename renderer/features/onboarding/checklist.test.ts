import { describe, expect, it } from 'vitest';
import { checklistState } from './checklist';

describe('the first-run checklist', () => {
  it('counts an item done from the data, not from a click', () => {
    expect(checklistState({ providers: 0, allowedHosts: [], invocations: 0 })).toEqual({ model: false, hosts: false, tool: false, done: 0, total: 3 });
    expect(checklistState({ providers: 1, allowedHosts: [], invocations: 3 })).toMatchObject({ model: true, hosts: false, tool: true, done: 2 });
    expect(checklistState({ providers: 0, allowedHosts: ['api.example.com'], invocations: 0 })).toMatchObject({ hosts: true, done: 1 });
  });
});
