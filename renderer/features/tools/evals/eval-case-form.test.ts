import { describe, expect, it } from 'vitest';
import type { EvalCaseBodyInput } from '../../../../shared/model/evals';
import { emptyDraft, firstIssue, fromDraft, modelValue, newAnswerCheck, newArgCheck, toDraft, type CaseDraft } from './eval-case-form';

const body: EvalCaseBodyInput = {
  name: 'weather in Paris',
  prompt: 'What is the weather in Paris?',
  context: [{ role: 'user', text: 'Hi' }],
  expect: { kind: 'tools', tools: [{ tool: 'get-weather', args: [{ kind: 'jsonPathEquals', path: "$['city']", value: 'Paris' }, { kind: 'schema' }] }] },
  answer: [
    { kind: 'regex', pattern: 'sunny|rain', ignoreCase: true },
    { kind: 'judge', rubric: 'Says the weather', model: { providerId: 'p1', model: 'judge' } },
  ],
  scope: { tools: 'named', named: ['weather/*', 'shop/search'], toolSearch: 'on' },
  results: [{ tool: 'get-weather', value: { sky: 'sunny' } }, { tool: 'shop/search', error: { code: 'TIMEOUT', message: 'slow' } }],
  otherCalls: 'refuse',
  approvals: 'allow',
  timeoutMs: 30_000,
};

describe('the eval case form', () => {
  it('holds a case and gives it back as it was', () => {
    const d = toDraft({ ...body, id: 'c1' });
    expect(d.named).toBe('weather/*\nshop/search');
    expect(d.timeout).toBe('30');
    expect(d.answer[1]).toMatchObject({ kind: 'judge', model: modelValue({ providerId: 'p1', model: 'judge' }) });
    const back = fromDraft(d);
    expect(back).toEqual({ ok: true, body: { ...body, id: 'c1' } });
  });

  it('says what is missing or wrong beside each field, before anything is sent', () => {
    const d: CaseDraft = emptyDraft();
    const arg = newArgCheck('jsonPathEquals');
    const schema = newArgCheck('schema');
    const regex = newAnswerCheck('regex');
    const bad: CaseDraft = {
      ...d,
      tools: [{ ...d.tools[0]!, tool: 'get_weather', args: [{ ...arg, path: '$.city', value: 'Paris' } as typeof arg, { ...schema, schema: '[1]' } as typeof schema] }],
      answer: [{ ...regex, pattern: '(' } as typeof regex],
      scope: 'named',
      named: 'weather',
      timeout: '0',
    };
    const r = fromDraft(bad);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.issues).sort()).toEqual(['answer.0.pattern', 'name', 'named', 'prompt', 'timeout', 'tools.0.args.0.value', 'tools.0.args.1.schema', 'tools.0.tool'].sort());
    expect(r.issues['tools.0.args.0.value']).toMatch(/^Not JSON/);
    expect(r.issues['answer.0.pattern']).toMatch(/^Not a regular expression/);
    expect(r.issues.named).toContain('“weather” is not bundle/slug');
    expect(firstIssue(r.issues)).toBe('name');
  });

  it('sends a case that expects no tool without the tool rows, and an empty schema check as the tool’s own', () => {
    const d = { ...emptyDraft('get-weather'), name: 'small talk', prompt: 'Hello', expect: 'none' as const };
    const r = fromDraft(d);
    expect(r).toMatchObject({ ok: true, body: { expect: { kind: 'none' }, scope: { tools: 'bundle', toolSearch: 'settings' } } });
    const s = newArgCheck('schema');
    const withSchema = fromDraft({ ...emptyDraft('get-weather'), name: 'n', prompt: 'p', tools: [{ key: 1, tool: 'get-weather', args: [s] }] });
    expect(withSchema).toMatchObject({ ok: true, body: { expect: { kind: 'tools', tools: [{ tool: 'get-weather', args: [{ kind: 'schema' }] }] } } });
  });

  it('saves a new case that expects no tool, and a saved one again, though their hidden tool row is empty', () => {
    const fresh = fromDraft({ ...emptyDraft(), name: 'small talk', prompt: 'Hello', expect: 'none' });
    expect(fresh).toMatchObject({ ok: true, body: { expect: { kind: 'none' } } });
    const saved: EvalCaseBodyInput = { ...body, expect: { kind: 'none' }, results: [] };
    expect(fromDraft(toDraft({ ...saved, id: 'c2' }))).toEqual({ ok: true, body: { ...saved, id: 'c2' } });
  });

  it('keeps a time limit that is not whole seconds', () => {
    const d = toDraft({ ...body, timeoutMs: 1500 });
    expect(d.timeout).toBe('1.5');
    expect(fromDraft(d)).toMatchObject({ ok: true, body: { timeoutMs: 1500 } });
    expect(fromDraft({ ...d, timeout: '0.5' })).toMatchObject({ ok: false, issues: { timeout: expect.any(String) } });
  });
});
