import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';
import { ASK_MASTER_SPEC, HANDOFF_SPEC, documentsArg, routeToolName, routeToolSpec, routedAgent, textArg } from './tools';

const profile = { name: 'analyst', displayName: 'Analyst', description: 'Works out figures.', systemPrompt: '', delegatesTo: [], canAskMaster: true, maxSteps: 5 };

describe('orchestration tools', () => {
  it('route_to_<name> carries the profile description and round-trips the name', () => {
    const spec = routeToolSpec(profile);
    expect(spec.name).toBe('route_to_analyst');
    expect(spec.description).toBe('Delegate a task to the Analyst agent and wait for its result. Works out figures.');
    expect(routedAgent(routeToolName('writer'))).toBe('writer');
    expect(routedAgent('route_to_')).toBeUndefined();
    expect(routedAgent('readfile')).toBeUndefined();
  });

  it('their schemas compile and check what they say', () => {
    const ajv = new Ajv2020({ strict: false });
    const route = ajv.compile(routeToolSpec(profile).parameters);
    expect(route({ request: 'sum it', documents: ['a.csv'] })).toBe(true);
    expect(route({ documents: ['a.csv'] })).toBe(false);
    expect(route({ request: 'x', extra: 1 })).toBe(false);
    expect(ajv.compile(HANDOFF_SPEC.parameters)({ result: 'done' })).toBe(true);
    expect(ajv.compile(ASK_MASTER_SPEC.parameters)({ question: '' })).toBe(false);
  });

  it('argument helpers refuse what is wrong with a clear message', () => {
    expect(documentsArg({})).toEqual([]);
    expect(documentsArg({ documents: ['a', 'a', 'b'] })).toEqual(['a', 'b']);
    expect(() => documentsArg({ documents: 'a' })).toThrow('documents must be a list of workspace paths');
    expect(() => textArg({ result: '  ' }, 'result')).toThrow('result must be a non-empty string');
    expect(textArg({ question: 'why?' }, 'question')).toBe('why?');
  });
});
