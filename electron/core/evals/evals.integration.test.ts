/**
 * Eval runs through the whole core (createCore on a temp folder) and the real `openai` client
 * speaking to the scripted model server on 127.0.0.1: a model that chooses right, chooses
 * wrong, fills wrong arguments, times out, fails; pass, fail and flaky figures; the judge;
 * approvals in a run nobody watches; tool search; cancel; saved runs compared.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EvalProgress, EvalRun } from '../../../shared/model/evals';
import { useAgentCore } from '../testing/agent-core';
import { forecastCase, weatherBundle } from '../testing/eval-kit';
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
    const forgotten: string[] = [];
    core.events.on('conversations.changed', (c) => c.kind === 'deleted' && forgotten.push(c.conversationId));
    const r = await run({ models: [{ ...model, price: { inputPerMillion: 2, outputPerMillion: 10 } }] });
    // The attempt's conversation is private to the run: not in the chat's list, and forgotten when done.
    expect(await call('conversations.list', {})).toEqual([]);
    expect(forgotten).toHaveLength(1);

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
    const seen = a.steps[0]!.tools.map((k) => r.tools[k]!.name);
    expect(seen).toEqual(toolNames(openai(server.requests)[0]!));
    const forecast = a.steps[0]!.tools.map((k) => r.tools[k]!).find((t) => t.name === 'forecast')!;
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
    const names = (i: number) => a.steps[i]!.tools.map((k) => r.tools[k]!.name);
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
    expect(made.notes.join(' ')).toContain('canned answers');
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
