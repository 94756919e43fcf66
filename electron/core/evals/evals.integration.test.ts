/**
 * Eval runs through the whole core (createCore on a temp folder) and the real `openai` client
 * speaking to the scripted model server on 127.0.0.1: a model that chooses right, chooses
 * wrong, fills wrong arguments, times out, fails; pass, fail and flaky figures; the judge;
 * approvals in a run nobody watches; tool search; cancel; saved runs compared.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EvalProgress, EvalRun } from '../../../shared/model/evals';
import { useAgentCore } from '../testing/agent-core';
import { forecastCase, weatherBundle } from '../testing/eval-kit';
import { EvalCaseStore } from './eval-case-store';
import type { RecordedRequest, ScriptedReply } from '../testing/scripted-model-server';

const start = useAgentCore();

const right: ScriptedReply = { kind: 'tools', calls: [{ name: 'forecast', arguments: { city: 'Paris', days: 3 } }], usage: { input: 100, output: 20 } };
const answer: ScriptedReply = { kind: 'text', text: 'Sunny in Paris for the next days.', usage: { input: 150, output: 12 } };

async function setup() {
  const h = await start();
  const bundleId = await weatherBundle(h.core);
  const run = (input: Partial<Parameters<typeof h.call<'evals.run'>>[1]> = {}) =>
    h.call('evals.run', { runId: randomUUID(), bundleIds: [bundleId], models: [h.model], ...input }) as Promise<EvalRun>;
  return { ...h, bundleId, run };
}

const openai = (reqs: RecordedRequest[]) => reqs.filter((r) => r.api === 'openai');
const toolNames = (r: RecordedRequest) => ((r.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

describe('eval runs through the core and a real provider client', () => {
  it('a model that chooses right passes: its tool answered by the canned result, tokens, time, cost and what it saw recorded, the run saved', async () => {
    const { server, core, call, bundleId, run, model } = await setup();
    await call('evals.save', { bundleId, evalCase: forecastCase({ answer: [{ kind: 'contains', text: 'Paris' }] }) });
    server.script([right, answer]);
    const told: unknown[] = [];
    core.events.on('conversations.changed', (c) => told.push(c));
    const r = await run({ models: [{ ...model, price: { inputPerMillion: 2, outputPerMillion: 10 } }] });
    // The attempt's conversation is private to the run: not in the chat's list, and no window is told of it.
    expect(await call('conversations.list', {})).toEqual([]);
    expect(told).toEqual([]);

    expect(r.status).toBe('done');
    expect(r.totals).toMatchObject({ results: 1, passed: 1, failed: 0, errors: 0, attempts: 1, inputTokens: 250, outputTokens: 32 });
    const result = r.results[0]!;
    expect(result).toMatchObject({ verdict: 'pass', passRate: 1, flaky: false, passed: 1, chosenInstead: [], model: `${model.providerId}/${model.model}` });
    expect(result.cost).toBeCloseTo((250 * 2 + 32 * 10) / 1e6, 12);
    const a = result.attempts[0]!;
    expect(a.outcome).toBe('pass');
    expect(a.checks.map((c) => [c.part, c.passed])).toEqual([
      ['tool', true],
      ['args', true],
      ['args', true],
      ['answer', true],
    ]);
    expect(a.calls).toEqual([expect.objectContaining({ kind: 'tool', name: 'forecast', tool: 'weather/forecast@1', args: { city: 'Paris', days: 3 }, status: 'ok', canned: true })]);
    expect(a.answer).toBe('Sunny in Paris for the next days.');
    // The model got the canned result as the tool's answer.
    const second = openai(server.requests)[1]!.body.messages as { role: string; content: string }[];
    expect(second.find((m) => m.role === 'tool')!.content).toContain('sunny');

    // What the model saw: exactly the tools of each request, with their texts.
    expect(a.steps).toHaveLength(2);
    const seen = r.toolSets[a.steps[0]!.toolSet]!.map((k) => r.tools[k]!.name);
    expect(seen).toEqual(toolNames(openai(server.requests)[0]!));
    const forecast = r.toolSets[a.steps[0]!.toolSet]!.map((k) => r.tools[k]!).find((t) => t.name === 'forecast')!;
    expect(forecast).toMatchObject({ description: 'The weather forecast of a city for the next days.', tool: { bundleId, bundleSlug: 'weather', slug: 'forecast', version: '1' } });
    expect(seen).toEqual(expect.arrayContaining(['alerts', 'count-words', 'guarded', 'stop_and_think']));

    expect(await call('evals.listRuns', {})).toEqual([expect.objectContaining({ id: r.id, cases: 1, totals: r.totals, bundles: [{ bundleId, bundleSlug: 'weather' }] })]);
    expect(await call('evals.getRun', { runId: r.id })).toEqual(r);
  });

  it('a model that chooses wrong fails, saying which tool it chose instead; one that fills wrong arguments fails with both values for the diff', async () => {
    const { server, call, bundleId, run } = await setup();
    await call('evals.save', { bundleId, evalCase: forecastCase() });
    server.script([{ kind: 'tools', calls: [{ name: 'alerts', arguments: { region: 'Paris' } }] }, { kind: 'text', text: 'No alerts.' }]);
    const wrongTool = await run();
    const w = wrongTool.results[0]!;
    expect(w).toMatchObject({ verdict: 'fail', passRate: 0, chosenInstead: [{ tool: 'weather/alerts', attempts: 1 }] });
    expect(w.attempts[0]!.checks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ part: 'tool', passed: false, message: 'expected a call of weather/forecast; the model called weather/alerts' }),
        expect.objectContaining({ part: 'tool', passed: false, message: 'called weather/alerts too, which the case does not expect' }),
      ]),
    );

    server.script([{ kind: 'tools', calls: [{ name: 'forecast', arguments: { city: 'Lyon', days: 30 } }] }, { kind: 'text', text: 'Rain in Lyon.' }]);
    const wrongArgs = await run();
    const a = wrongArgs.results[0]!.attempts[0]!;
    expect(a.outcome).toBe('fail');
    const city = a.checks.find((c) => c.check?.kind === 'jsonPathEquals')!;
    expect(city).toMatchObject({ passed: false, message: 'expected $.city to equal "Paris", got "Lyon"', compared: { expected: 'Paris', actual: 'Lyon' } });
    // The schema check reads the tool's own argSchema; a canned tool's arguments are still checked as a call would check them.
    expect(a.checks.find((c) => c.check?.kind === 'schema')).toMatchObject({ passed: false });
    expect(a.calls[0]).toMatchObject({ status: 'error', error: { code: 'VALIDATION_FAILED' } });
  });

  it('a pass that calls another tool where the case allows others chose nothing instead', async () => {
    const { server, call, bundleId, run } = await setup();
    const base = forecastCase();
    const expected = { tool: 'forecast', args: [{ kind: 'jsonPathEquals' as const, path: '$.city', value: 'Paris' }] };
    await call('evals.save', { bundleId, evalCase: { ...base, expect: { kind: 'tools', tools: [expected], allowOthers: true }, results: [...base.results!, { tool: 'alerts', value: [] }] } });
    server.script([{ kind: 'tools', calls: [{ name: 'alerts', arguments: { region: 'Paris' } }, { name: 'forecast', arguments: { city: 'Paris', days: 3 } }] }, { kind: 'text', text: 'Sunny, no alerts.' }]);
    const r = (await run()).results[0]!;
    expect(r).toMatchObject({ verdict: 'pass', chosenInstead: [] });
  });

  it('N attempts give a pass rate; some passing and some failing is flaky, a pass only at or above the run’s pass rate', async () => {
    const { server, call, bundleId, run } = await setup();
    await call('evals.save', { bundleId, evalCase: forecastCase() });
    const wrong: ScriptedReply = { kind: 'tools', calls: [{ name: 'alerts', arguments: { region: 'Paris' } }] };
    const script = () => server.script([right, answer, wrong, { kind: 'text', text: 'none' }, right, answer]);
    script();
    const strict = await run({ repeat: 3 });
    expect(strict.results[0]).toMatchObject({ passed: 2, failed: 1, errors: 0, flaky: true, verdict: 'fail' });
    expect(strict.results[0]!.passRate).toBeCloseTo(2 / 3, 10);
    expect(strict.results[0]!.attempts.map((a) => a.outcome)).toEqual(['pass', 'fail', 'pass']);
    expect(strict.totals).toMatchObject({ failed: 1, flaky: 1, attempts: 3 });
    script();
    const lenient = await run({ repeat: 3, passRate: 0.6 });
    expect(lenient.results[0]).toMatchObject({ verdict: 'pass', flaky: true });
  });

  it('a model that times out is an error of that attempt (its request cancelled), and the run goes on', async () => {
    const { server, call, bundleId, run } = await setup();
    await call('evals.save', { bundleId, evalCase: forecastCase({ name: 'slow', timeoutMs: 1000 }) });
    await call('evals.save', { bundleId, evalCase: forecastCase({ name: 'after it' }) });
    const never = new Promise(() => undefined);
    server.script([{ kind: 'hold', until: never }, right, answer]);
    const r = await run();
    expect(r.results.map((x) => [x.name, x.verdict])).toEqual([
      ['slow', 'error'],
      ['after it', 'pass'],
    ]);
    expect(r.results[0]!.attempts[0]!.error).toMatchObject({ code: 'TIMEOUT', message: "the model did not finish within 1 s (the case's time limit): the attempt was stopped" });
    expect(openai(server.requests)[0]!.aborted).toBe(true);
    expect(r.totals).toMatchObject({ passed: 1, errors: 1 });
  });

  it('a provider that fails gives that case a clear error, not a crashed run; a model whose provider is not saved errs without a request', async () => {
    const { server, call, bundleId, run, model } = await setup();
    await call('evals.save', { bundleId, evalCase: forecastCase({ name: 'first' }) });
    await call('evals.save', { bundleId, evalCase: forecastCase({ name: 'second' }) });
    server.script([{ kind: 'status', status: 500, body: { error: { message: 'upstream exploded' } } }, right, answer]);
    const r = await run({ models: [model, { providerId: 'gone', model: 'x' }] });
    expect(r.results.map((x) => [x.name, x.model, x.verdict])).toEqual([
      ['first', `${model.providerId}/${model.model}`, 'error'],
      ['first', 'gone/x', 'error'],
      ['second', `${model.providerId}/${model.model}`, 'pass'],
      ['second', 'gone/x', 'error'],
    ]);
    expect(r.results[0]!.attempts[0]!.error!.message).toContain('upstream exploded');
    expect(r.results[1]!.attempts[0]!.error).toEqual({ code: 'NOT_FOUND', message: "no provider with id 'gone': add it in Settings → Models, or choose another" });
    expect(openai(server.requests)).toHaveLength(3);
  });

  it('a case that cannot run says why and asks nothing', async () => {
    const { server, call, bundleId, run } = await setup();
    await call('evals.save', { bundleId, evalCase: forecastCase({ name: 'missing tool', expect: { kind: 'tools', tools: [{ tool: 'nope', args: [] }] } }) });
    await call('evals.save', { bundleId, evalCase: forecastCase({ name: 'other bundle', expect: { kind: 'tools', tools: [{ tool: 'text/count', args: [] }] } }) });
    await call('evals.save', { bundleId, evalCase: forecastCase({ name: 'no judge', answer: [{ kind: 'judge', rubric: 'says the weather' }] }) });
    const r = await run();
    expect(r.results.map((x) => x.attempts[0]!.error!.message)).toEqual([
      'the case cannot run: the expected tool weather/nope does not exist',
      'the case cannot run: the expected tool text/count is not among the tools the case offers the model (scope: bundle); add it to the scope',
      'the case cannot run: it has a judge check without a judge model: give the run one (toolsmith eval --judge provider/model) or the check its own',
    ]);
    expect(openai(server.requests)).toHaveLength(0);
  });

  it('the judge path: a scripted judge passes, fails, or answers garbage (an error, not a fail)', async () => {
    const { server, call, bundleId, run, model } = await setup();
    await call('evals.save', { bundleId, evalCase: forecastCase({ answer: [{ kind: 'judge', rubric: 'Says what the weather will be in Paris.' }] }) });
    const judge = { providerId: model.providerId, model: 'judge-model' };
    const verdict = (text: string): ScriptedReply => ({ kind: 'text', text, usage: { input: 300, output: 9 } });
    server.script([right, answer, verdict('```json\n{"pass": true, "reason": "It says sunny in Paris."}\n```')]);
    const passed = await run({ judge });
    const a = passed.results[0]!.attempts[0]!;
    expect(a.outcome).toBe('pass');
    expect(a.checks.at(-1)).toMatchObject({ part: 'answer', passed: true, message: 'the judge passed it: It says sunny in Paris.' });
    expect(a).toMatchObject({ judgeInputTokens: 300, judgeOutputTokens: 9, inputTokens: 250 });
    const asked = openai(server.requests)[2]!.body;
    expect(asked.model).toBe('judge-model');
    expect(asked.tools ?? []).toEqual([]);
    const judgeText = (asked.messages as { role: string; content: string }[]).find((m) => m.role === 'user')!.content;
    expect(judgeText).toContain('Says what the weather will be in Paris.');
    expect(judgeText).toContain('- weather/forecast@1 {"city":"Paris","days":3} → answered');
    expect(judgeText).toContain('Sunny in Paris for the next days.');

    server.script([right, answer, verdict('{"pass": false, "reason": "No temperatures."}')]);
    expect((await run({ judge })).results[0]!.attempts[0]).toMatchObject({ outcome: 'fail' });

    server.script([right, answer, verdict('I think it is fine.')]);
    const garbage = (await run({ judge })).results[0]!;
    expect(garbage.verdict).toBe('error');
    expect(garbage.attempts[0]!.error!.message).toMatch(/^the judge \(.+\/judge-model\) could not answer: the judge did not answer with the JSON asked for/);

    // A failed deterministic check is not sent to the judge.
    server.script([{ kind: 'tools', calls: [{ name: 'alerts', arguments: { region: 'x' } }] }, answer]);
    const before = openai(server.requests).length;
    const failed = (await run({ judge })).results[0]!.attempts[0]!;
    expect(openai(server.requests).length - before).toBe(2);
    expect(failed.checks.at(-1)).toMatchObject({ passed: false, message: 'not judged: the attempt already failed a check' });
  });

  it('a tool that asks for approval is denied in an unattended run unless the case allows it; a canned one runs nothing and is not asked', async () => {
    const { server, call, core, bundleId, run } = await setup();
    const guarded = { name: 'guarded', expect: { kind: 'tools' as const, tools: [{ tool: 'guarded', args: [] }] }, results: [] };
    await call('evals.save', { bundleId, evalCase: forecastCase(guarded) });
    const calls: ScriptedReply = { kind: 'tools', calls: [{ name: 'guarded', arguments: { text: 'a b c' } }] };
    server.script([calls, (req) => ({ kind: 'text', text: `told: ${req.body.messages.at(-1).content}` })]);
    const denied = (await run()).results[0]!.attempts[0]!;
    // The choice is judged either way: the model chose right.
    expect(denied.outcome).toBe('pass');
    expect(denied.calls[0]).toMatchObject({ status: 'denied' });
    expect(denied.answer).toContain('this is an unattended eval run and the tool asks for approval');
    const guardedId = core.registry.store.getTool(bundleId, 'guarded', '1').id;
    expect(await call('invocations.list', { toolId: guardedId })).toHaveLength(0);

    const [saved] = await call('evals.list', { bundleId });
    const { createdAt: _created, updatedAt: _updated, ...body } = saved!;
    await call('evals.save', { bundleId, evalCase: { ...body, approvals: 'allow' } });
    server.script([calls, { kind: 'text', text: 'three words' }]);
    const allowed = (await run()).results[0]!.attempts[0]!;
    expect(allowed.calls[0]).toMatchObject({ status: 'ok', args: { text: 'a b c' } });
    expect(allowed.calls[0]!.canned).toBeUndefined();
    expect(await call('invocations.list', { toolId: guardedId })).toHaveLength(1);
    // Nothing was remembered: the next chat still asks.
    expect(await call('approvals.list', {})).toEqual([]);

    // Answered by a canned result: nothing runs, so nothing is asked (the case denies otherwise).
    await call('evals.save', { bundleId, evalCase: { ...body, id: saved!.id, approvals: 'deny', results: [{ tool: 'guarded', value: { words: 3 } }] } });
    server.script([calls, { kind: 'text', text: 'three words' }]);
    const canned = (await run()).results[0]!.attempts[0]!;
    expect(canned.calls[0]).toMatchObject({ status: 'ok', canned: true });
    expect(canned.outcome).toBe('pass');
    expect(await call('invocations.list', { toolId: guardedId })).toHaveLength(1);
  });

  it('with tool search on, the model first sees tool_search, and the run records what each step carried', async () => {
    const { server, call, bundleId, run } = await setup();
    await call('evals.save', { bundleId, evalCase: forecastCase({ scope: { tools: 'enabled', toolSearch: 'on' } }) });
    server.script([{ kind: 'tools', calls: [{ name: 'tool_search', arguments: { query: 'weather forecast of a city' } }] }, right, answer]);
    const r = await run();
    const a = r.results[0]!.attempts[0]!;
    expect(a.outcome).toBe('pass');
    expect(a.toolSearch).toMatch(/^tool search is always on/);
    expect(a.calls[0]).toMatchObject({ kind: 'search', search: { query: 'weather forecast of a city', loaded: expect.arrayContaining(['forecast']) } });
    const names = (i: number) => r.toolSets[a.steps[i]!.toolSet]!.map((k) => r.tools[k]!.name);
    expect(names(0)).toContain('tool_search');
    expect(names(0)).not.toContain('forecast');
    expect(names(1)).toContain('forecast');
    expect(names(0)).toEqual(toolNames(openai(server.requests)[0]!));
    expect(names(1)).toEqual(toolNames(openai(server.requests)[1]!));
  });

  it('cancel mid-run: the attempt running is stopped, what it did not reach is not run, the run is saved as cancelled', async () => {
    const { server, core, call, bundleId, model } = await setup();
    await call('evals.save', { bundleId, evalCase: forecastCase({ name: 'one' }) });
    await call('evals.save', { bundleId, evalCase: forecastCase({ name: 'two' }) });
    server.script([right, answer, { kind: 'hold', until: new Promise(() => undefined) }]);
    const runId = randomUUID();
    const progress: EvalProgress[] = [];
    const done: unknown[] = [];
    core.events.on('evals.done', (d) => done.push(d));
    core.events.on('evals.progress', (p) => {
      if (p.runId !== runId) return;
      progress.push(p.progress);
      if (p.progress.kind === 'attempt-start' && p.progress.n === 2) void call('evals.cancel', { runId });
    });
    const r = await call('evals.run', { runId, bundleIds: [bundleId], models: [model], repeat: 2 });
    expect(r.status).toBe('cancelled');
    expect(r.results.map((x) => x.attempts.map((a) => a.outcome))).toEqual([
      ['pass', 'not-run'],
      ['not-run', 'not-run'],
    ]);
    expect(r.results.map((x) => x.verdict)).toEqual(['not-run', 'not-run']);
    expect(progress[0]).toEqual({ kind: 'plan', cases: 2, models: [`${model.providerId}/${model.model}`], repeat: 2, attempts: 4 });
    expect(progress.filter((p) => p.kind === 'attempt-start')).toHaveLength(2);
    expect(done).toEqual([{ runId, run: r }]);
    expect(await call('evals.running', {})).toEqual({ runs: [] });
    expect(await call('evals.cancel', { runId })).toEqual({ cancelled: false });
    expect((await call('evals.getRun', { runId })).status).toBe('cancelled');
  });

  it('runs compared: this run against the last (with the tool description the model saw in each), and model A against model B', async () => {
    const { server, core, call, bundleId, run, model } = await setup();
    await call('evals.save', { bundleId, evalCase: forecastCase() });
    server.script([{ kind: 'tools', calls: [{ name: 'alerts', arguments: { region: 'Paris' } }] }, answer]);
    const v1 = await run();
    const before = core.registry.store.getTool(bundleId, 'forecast', '1');
    await call('tools.put', {
      bundleId,
      slug: 'forecast',
      version: '2',
      body: { displayName: before.displayName, description: 'Use this for any question about the weather to come in a city.', tags: before.tags, type: 'local', argSchema: before.argSchema, outputSchema: {}, local: { functionId: 'text.count' }, isEnabled: true },
    });
    server.script([right, answer]);
    const v2 = await run();
    const cmp = await call('evals.compare', { head: { runId: v2.id } });
    expect(cmp.base.runId).toBe(v1.id);
    expect(cmp.cases).toEqual([expect.objectContaining({ name: 'forecast for Paris', change: 'fixed', base: expect.objectContaining({ verdict: 'fail' }), head: expect.objectContaining({ verdict: 'pass' }) })]);
    expect(cmp.counts).toMatchObject({ fixed: 1, broke: 0 });
    expect(cmp.passRate).toEqual({ base: 0, head: 1 });
    expect(cmp.tools).toEqual([
      expect.objectContaining({
        tool: 'weather/forecast',
        descriptionChanged: true,
        parametersChanged: false,
        base: expect.objectContaining({ version: '1', description: 'The weather forecast of a city for the next days.' }),
        head: expect.objectContaining({ version: '2', description: 'Use this for any question about the weather to come in a city.' }),
      }),
    ]);

    // Two models in one run, answered by the model the request names.
    const b = { providerId: model.providerId, model: 'model-b' };
    const byModel = (req: RecordedRequest): ScriptedReply => {
      const toolDone = (req.body.messages as { role: string }[]).some((m) => m.role === 'tool');
      if (toolDone) return answer;
      return req.body.model === 'model-b' ? { kind: 'tools', calls: [{ name: 'alerts', arguments: { region: 'x' } }] } : right;
    };
    server.fallback(byModel);
    const both = await run({ models: [model, b] });
    const ab = await call('evals.compare', { base: { runId: both.id, model: `${model.providerId}/${model.model}` }, head: { runId: both.id, model: `${b.providerId}/${b.model}` } });
    expect(ab.cases).toEqual([expect.objectContaining({ change: 'broke', baseModel: `${model.providerId}/${model.model}`, headModel: `${b.providerId}/model-b` })]);
    expect(ab.tools).toEqual([]);
    await expect(call('evals.compare', { base: { runId: both.id, model: 'p/none' }, head: { runId: both.id } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('eval cases from real use', () => {
  it('a chat turn becomes a case (the message, the tool called, its arguments, its result canned) that passes when run; a failed model call becomes one too', async () => {
    const { server, call, send, messages, bundleId, run, model } = await setup();
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    server.script([{ kind: 'text', text: 'Hello! Ask me anything.' }]);
    await send(c.id, 'hi there');
    server.script([{ kind: 'tools', calls: [{ name: 'count-words', arguments: { text: "it's a b c" } }] }, { kind: 'text', text: 'Four words.' }]);
    await send(c.id, 'How many words are in "it\'s a b c"?');
    const rows = await messages(c.id);
    const card = rows.find((r) => r.role === 'tool' && r.tool?.status === 'ok')!;

    const made = await call('evals.fromChat', { conversationId: c.id, messageId: card.id, save: true });
    expect(made.bundleId).toBe(bundleId);
    expect(made.draft).toMatchObject({
      name: 'How many words are in "it\'s a b c"?',
      prompt: 'How many words are in "it\'s a b c"?',
      context: [
        { role: 'user', text: 'hi there' },
        { role: 'assistant', text: 'Hello! Ask me anything.' },
      ],
      expect: { kind: 'tools', tools: [{ tool: 'count-words', args: [{ kind: 'jsonPathEquals', path: "$['text']", value: "it's a b c" }] }] },
      results: [{ tool: 'count-words', value: card.tool!.value }],
      scope: { tools: 'enabled', toolSearch: 'settings' },
    });
    expect(made.notes.join(' ')).toContain('count-words gave is kept as its canned answer');
    expect(made.notes.join(' ')).not.toContain('runs it for real');
    expect(await call('evals.list', { bundleId, tool: 'count-words' })).toEqual([made.saved]);
    expect(await call('evals.list', { bundleId, tool: 'forecast' })).toEqual([]);

    // Run as the chat ran it: the same choice passes, with nothing run.
    server.script([{ kind: 'tools', calls: [{ name: 'count-words', arguments: { text: "it's a b c" } }] }, { kind: 'text', text: 'Four words.' }]);
    const r = await run();
    expect(r.results[0]).toMatchObject({ verdict: 'pass' });
    expect(r.results[0]!.attempts[0]!.calls[0]).toMatchObject({ canned: true });
    // The earlier messages went to the model before the user's message.
    const sent = openai(server.requests).at(-2)!.body.messages as { role: string; content: string }[];
    expect(sent.filter((m) => m.role !== 'system').map((m) => m.role)).toEqual(['user', 'assistant', 'user']);

    // A failed model call: the user's message is kept, the case expects no tool until told which.
    server.script([{ kind: 'status', status: 503, body: { error: { message: 'overloaded' } } }]);
    await send(c.id, 'What is the weather in Oslo?');
    const notice = (await messages(c.id)).at(-1)!;
    expect(notice.role).toBe('notice');
    await expect(call('evals.fromChat', { conversationId: c.id, messageId: notice.id })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('say which bundle') });
    const failed = await call('evals.fromChat', { conversationId: c.id, messageId: notice.id, bundleId });
    expect(failed.draft).toMatchObject({ prompt: 'What is the weather in Oslo?', expect: { kind: 'none' }, results: [] });
    expect(failed.notes.join(' ')).toMatch(/the model call failed in the chat \(UNAVAILABLE: .*overloaded/);
    expect(failed.saved).toBeUndefined();

    // A call whose arguments were refused: the case checks them against the tool's argSchema, not the wrong values.
    server.script([{ kind: 'tools', calls: [{ name: 'count-words', arguments: { words: 'a b' } }] }, { kind: 'text', text: 'Sorry.' }]);
    await send(c.id, 'Count the words of "a b"');
    const refused = (await messages(c.id)).find((m) => m.role === 'tool' && m.tool?.status === 'error')!;
    const fromRefused = await call('evals.fromChat', { conversationId: c.id, messageId: refused.id });
    expect(fromRefused.draft.expect).toEqual({ kind: 'tools', tools: [{ tool: 'count-words', args: [{ kind: 'schema' }] }] });
    expect(fromRefused.draft.results).toEqual([]);
    expect(fromRefused.notes.join(' ')).toContain("the model's arguments for count-words failed");
  });
});

describe('drafts from chat turns where a tool was called more than once', () => {
  it('take the last call that answered (its arguments and its result), and say which tools the case would run for real', async () => {
    const { server, call, send, messages, model } = await setup();
    const c = await call('conversations.create', {});
    await call('conversations.setModel', { id: c.id, model });
    server.script([
      { kind: 'tools', calls: [{ name: 'count-words', arguments: { words: 'a b' } }] },
      { kind: 'tools', calls: [{ name: 'count-words', arguments: { text: 'a b' } }] },
      { kind: 'tools', calls: [{ name: 'count-words', arguments: { text: 'a b c' } }] },
      { kind: 'tools', calls: [{ name: 'guarded', arguments: { text: 'x' } }] },
      { kind: 'text', text: 'Two words.' },
    ]);
    // The guarded call waits for approval: deny it from the chat.
    const sent = send(c.id, 'How many words in "a b"?');
    let waiting;
    for (let i = 0; i < 500 && !waiting; i++) {
      waiting = (await messages(c.id)).find((m) => m.tool?.status === 'awaiting-approval');
      if (!waiting) await new Promise((r) => setTimeout(r, 10));
    }
    await call('approvals.respond', { conversationId: c.id, invocationId: waiting!.tool!.invocationId, decision: 'deny' });
    await sent;
    const rows = await messages(c.id);
    const oks = rows.filter((m) => m.tool?.slug === 'count-words' && m.tool.status === 'ok');
    expect(oks).toHaveLength(2);
    const user = rows.find((m) => m.role === 'user')!;
    const made = await call('evals.fromChat', { conversationId: c.id, messageId: user.id });
    expect(made.draft.expect).toEqual({
      kind: 'tools',
      tools: [
        { tool: 'count-words', args: [{ kind: 'jsonPathEquals', path: "$['text']", value: 'a b c' }] },
        { tool: 'guarded', args: [{ kind: 'jsonPathEquals', path: "$['text']", value: 'x' }] },
      ],
    });
    expect(made.draft.results).toEqual([{ tool: 'count-words', value: oks.at(-1)!.tool!.value }]);
    expect(made.notes).toEqual(expect.arrayContaining([expect.stringMatching(/^guarded has no canned answer .*replaying the case runs it for real/)]));
    expect(made.notes.join(' ')).not.toMatch(/count-words has no canned answer/);
  });
});

describe('what a run leaves, and delegated tasks', () => {
  const bufferOwners = async (dataDir: string) => (await fs.readdir(path.join(dataDir, 'buffers')).catch(() => [] as string[])).filter((n) => !n.startsWith('.'));

  it('an approval rule another process saved while the run went on stays: an attempt neither tells the windows nor writes approvals.json', async () => {
    const { server, core, call, bundleId, run } = await setup();
    await call('evals.save', { bundleId, evalCase: forecastCase() });
    // This core does not watch the data folder (as the CLI's): another process (the app) saves a rule after it started.
    const file = path.join(core.dataDir, 'approvals.json');
    const rule = { toolId: core.registry.store.getTool(bundleId, 'guarded', '1').id, toolName: 'weather/guarded', scope: 'always', createdAt: '2026-05-01T10:00:00.000Z' };
    await fs.writeFile(file, JSON.stringify({ version: 1, rules: [rule] }, null, 2));
    const told: string[] = [];
    core.events.on('conversations.changed', () => told.push('conversations.changed'));
    core.events.on('approvals.changed', () => told.push('approvals.changed'));
    core.events.on('toolOutputs.changed', () => told.push('toolOutputs.changed'));
    server.script([right, answer, right, answer]);
    const r = await run({ repeat: 2 });
    expect(r.results[0]!.verdict).toBe('pass');
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual({ version: 1, rules: [rule] });
    expect(told).toEqual([]);
  });

  it('a canned call is answered inline even when the model routes it to a buffer; what a real call routed to a buffer is removed with the attempt', async () => {
    const { server, core, call, bundleId, run } = await setup();
    await call('settings.set', { modelRouting: ['weather/forecast', 'weather/count-words'] });
    await call('evals.save', { bundleId, evalCase: forecastCase({ expect: { kind: 'tools', tools: [{ tool: 'forecast', args: [] }, { tool: 'count-words', args: [] }] } }) });
    server.script([
      { kind: 'tools', calls: [{ name: 'forecast', arguments: { city: 'Paris', output: 'variable:weather' } }] },
      { kind: 'tools', calls: [{ name: 'count-words', arguments: { text: 'a b c', output: 'variable:words' } }] },
      answer,
    ]);
    const r = await run();
    const a = r.results[0]!.attempts[0]!;
    expect(a.outcome).toBe('pass');
    expect(a.calls.map((c) => [c.name, c.status, c.canned ?? false])).toEqual([
      ['forecast', 'ok', true],
      ['count-words', 'ok', false],
    ]);
    // The model got the canned value itself, not a note that it went to a buffer.
    const second = openai(server.requests)[1]!.body.messages as { role: string; content: string }[];
    expect(second.find((m) => m.role === 'tool')!.content).toContain('sunny');
    // The real call's result went to a buffer of the attempt (the model was told so) …
    const third = openai(server.requests)[2]!.body.messages as { role: string; content: string }[];
    expect(third.filter((m) => m.role === 'tool').at(-1)!.content).toContain('words');
    // … which went with the attempt.
    expect(await bufferOwners(core.dataDir)).toEqual([]);
  });

  it('a delegated agent: its approvals answered as the case says, its question to the user declined, its calls counted and its buffers removed', async () => {
    const { server, core, call, bundleId, run } = await setup();
    await call('settings.set', { modelRouting: ['weather/count-words'] });
    await call('agents.put', {
      profile: { name: 'counter', description: 'Counts words.', systemPrompt: 'You help.', tools: { bundleIds: [bundleId], toolIds: [] }, delegatesTo: [], canAskMaster: true, maxSteps: 6 },
    });
    await call('evals.save', {
      bundleId,
      evalCase: forecastCase({ name: 'delegated', expect: { kind: 'tools', tools: [{ tool: 'guarded', args: [{ kind: 'jsonPathEquals', path: '$.text', value: 'a b c' }] }], allowOthers: true }, scope: { tools: 'enabled', toolSearch: 'off' }, results: [], approvals: 'allow', timeoutMs: 60_000 }),
    });
    const counter = (r: RecordedRequest) => JSON.stringify(r.body.messages ?? []).includes('You are the counter agent');
    const told: string[] = [];
    const queues: Record<'root' | 'counter', ((r: RecordedRequest) => ScriptedReply)[]> = {
      root: [() => ({ kind: 'tools', calls: [{ name: 'route_to_counter', arguments: { request: 'Count the words of "a b c".' } }] }), () => ({ kind: 'text', text: 'Three words.' })],
      counter: [
        () => ({ kind: 'tools', calls: [{ name: 'guarded', arguments: { text: 'a b c' } }] }),
        () => ({ kind: 'tools', calls: [{ name: 'count-words', arguments: { text: 'a b c', output: 'variable:words' } }] }),
        () => ({ kind: 'tools', calls: [{ name: 'ask_master', arguments: { question: 'Words or letters?' } }] }),
        (r) => {
          told.push(JSON.stringify(r.body.messages.at(-1)));
          return { kind: 'tools', calls: [{ name: 'handoff', arguments: { result: 'three words' } }] };
        },
      ],
    };
    server.fallback((r) => queues[counter(r) ? 'counter' : 'root'].shift()?.(r) ?? { kind: 'text', text: 'nothing left' });
    const guardedId = core.registry.store.getTool(bundleId, 'guarded', '1').id;
    const a = (await run()).results[0]!.attempts[0]!;
    expect(a.error).toBeUndefined();
    expect(a.outcome).toBe('pass');
    expect(a.calls.map((c) => [c.name, c.kind, c.status])).toEqual([
      ['route_to_counter', 'model-only', 'ok'],
      ['guarded', 'tool', 'ok'],
      ['count-words', 'tool', 'ok'],
      ['ask_master', 'model-only', 'error'],
      ['handoff', 'model-only', 'ok'],
    ]);
    expect(a.calls[3]!.error!.message).toContain('nobody can answer: this is an unattended eval run');
    expect(told[0]).toContain('nobody can answer');
    expect(await call('invocations.list', { toolId: guardedId })).toHaveLength(1);
    expect(await bufferOwners(core.dataDir)).toEqual([]);

    // A case that expects no tool fails when a delegated agent ran one.
    await call('evals.save', { bundleId, evalCase: forecastCase({ name: 'no tool', expect: { kind: 'none' }, scope: { tools: 'enabled', toolSearch: 'off' }, results: [], timeoutMs: 60_000 }) });
    queues.root.push(() => ({ kind: 'tools', calls: [{ name: 'route_to_counter', arguments: { request: 'Count.' } }] }), () => ({ kind: 'text', text: 'Done.' }));
    queues.counter.push(() => ({ kind: 'tools', calls: [{ name: 'count-words', arguments: { text: 'x' } }] }), () => ({ kind: 'tools', calls: [{ name: 'handoff', arguments: { result: 'one' } }] }));
    const cases = await call('evals.list', { bundleId });
    const none = (await run({ caseIds: [cases.find((c) => c.name === 'no tool')!.id] })).results[0]!;
    expect(none.attempts[0]!.checks[0]).toMatchObject({ part: 'tool', passed: false, message: 'expected no tool call; the model called weather/count-words' });
  });
});

describe('runs that cannot be judged, saved or carried', () => {
  it('a check that cannot be evaluated (an answer pattern out of time) makes the attempt an error, not the model’s fail', async () => {
    const { server, call, bundleId, run } = await setup();
    await call('evals.save', { bundleId, evalCase: forecastCase({ answer: [{ kind: 'regex', pattern: '(?=(a+)+b)' }] }) });
    server.script([right, { kind: 'text', text: 'a'.repeat(40) }]);
    const r = (await run()).results[0]!;
    expect(r).toMatchObject({ verdict: 'error', failed: 0, errors: 1 });
    expect(r.attempts[0]!.error).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/^the answer check's pattern .* simplify the answer check's pattern$/) });
  });

  it('checks read the arguments and the answer whole; the attempt stores them cut', async () => {
    const { server, call, bundleId, run } = await setup();
    const detail = 'd'.repeat(70 * 1024);
    await call('evals.save', {
      bundleId,
      evalCase: forecastCase({
        expect: { kind: 'tools', tools: [{ tool: 'alerts', args: [{ kind: 'jsonPathEquals', path: '$.region', value: 'Paris' }, { kind: 'contains', text: 'the end' }] }] },
        answer: [{ kind: 'contains', text: 'Stay safe in Paris' }],
        results: [{ tool: 'alerts', value: { alerts: [] } }],
      }),
    });
    server.script([{ kind: 'tools', calls: [{ name: 'alerts', arguments: { region: 'Paris', detail, tail: 'the end' } }] }, { kind: 'text', text: `${'n'.repeat(17 * 1024)} Stay safe in Paris.` }]);
    const a = (await run()).results[0]!.attempts[0]!;
    expect(a.checks.map((c) => [c.part, c.passed])).toEqual([
      ['tool', true],
      ['args', true],
      ['args', true],
      ['answer', true],
    ]);
    expect(a.outcome).toBe('pass');
    expect(typeof a.calls[0]!.args).toBe('string');
    expect((a.calls[0]!.args as string).endsWith('…')).toBe(true);
    expect(a.answer).toHaveLength(16 * 1024 + 1);
  });

  it('canned results for a tool that does not exist, or two for one tool, are refused on save and cannot run', async () => {
    const { server, core, call, bundleId, run } = await setup();
    await expect(call('evals.save', { bundleId, evalCase: forecastCase({ results: [{ tool: 'nope', value: 1 }] }) })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'a canned result names weather/nope, which does not exist: correct its tool or remove it',
    });
    await expect(call('evals.save', { bundleId, evalCase: forecastCase({ results: [{ tool: 'forecast', value: 1 }, { tool: 'weather/forecast', value: 2 }] }) })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: "'forecast' and 'weather/forecast' are the same tool (weather/forecast), with two canned results: keep one",
    });
    // Written past the app (by hand, or before the check): the run says why and asks nothing.
    const store = new EvalCaseStore({ dataDir: core.dataDir });
    await store.save(bundleId, forecastCase({ results: [{ tool: 'forecast', value: 1 }, { tool: 'weather/forecast', value: 2 }] }));
    const r = await run();
    expect(r.results[0]!.attempts[0]!.error!.message).toBe("the case cannot run: weather/forecast has two canned results ('forecast' and 'weather/forecast'): keep one");
    expect(openai(server.requests)).toHaveLength(0);
  });

  it('a run of no case is answered but not saved', async () => {
    const { core, call, run } = await setup();
    const done: unknown[] = [];
    core.events.on('evals.done', (d) => done.push(d));
    const r = await run();
    expect(r.results).toEqual([]);
    expect(await call('evals.listRuns', {})).toEqual([]);
    expect(done).toEqual([{ runId: r.id, run: r }]);
  });

  it('closing the app while a run goes on stops it and waits until it is saved', async () => {
    const { server, core, call, bundleId, model } = await setup();
    await call('evals.save', { bundleId, evalCase: forecastCase() });
    server.script([{ kind: 'hold', until: new Promise(() => undefined) }]);
    const runId = randomUUID();
    const started = new Promise<void>((resolve) => core.events.on('evals.progress', (p) => p.progress.kind === 'attempt-start' && resolve()));
    const running = core.call('evals.run', { runId, bundleIds: [bundleId], models: [model] });
    await started;
    await core.close();
    const file = JSON.parse(await fs.readFile(path.join(core.dataDir, 'eval-runs', `${runId}.json`), 'utf8'));
    expect(file).toMatchObject({ format: 'toolsmith-eval-run', version: 2, run: { id: runId, status: 'cancelled' } });
    expect((await running).ok).toBe(true);
  });
});
