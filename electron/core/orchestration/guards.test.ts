import { describe, expect, it } from 'vitest';
import { delegationRefusal } from './guards';

describe('delegation guards', () => {
  it('allows a chain up to the depth limit', () => {
    expect(delegationRefusal([], 'analyst', 3)).toBeUndefined();
    expect(delegationRefusal(['analyst', 'writer'], 'researcher', 3)).toBeUndefined();
  });

  it('refuses past the depth limit, naming the chain', () => {
    expect(delegationRefusal(['analyst', 'writer', 'researcher'], 'charts', 3)).toBe(
      'delegation depth limit reached: conversation → analyst → writer → researcher → charts would be 4 levels deep (the limit is 3); do the work here',
    );
    expect(delegationRefusal([], 'analyst', 0)).toMatch(/^delegation depth limit reached/);
  });

  it('refuses a cycle A → B → A', () => {
    expect(delegationRefusal(['analyst', 'writer'], 'analyst', 10)).toBe(
      'delegation cycle refused: conversation → analyst → writer → analyst (an agent cannot take a task from a chain it is already in); do the work here or give it to another agent',
    );
    expect(delegationRefusal(['writer'], 'writer', 10)).toMatch(/^delegation cycle refused/);
  });
});
