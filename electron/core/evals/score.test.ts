/**
 * The deterministic checks on their own: values scored whole, a check that cannot be evaluated
 * marked as such (the attempt's error, not the model's fail), and answer patterns in any case on
 * the linear-time engine.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import type { EvalCall, EvalCase } from '../../../shared/model/evals';
import { closeSchemaRegExp, resetSlowPatternWindow } from '../lib/schema-regexp';
import { SchemaCache } from '../invoke/schema-cache';
import { argChecks } from './from-chat';
import { scoreAnswer, scoreChoice, toolKeyOf, type ScoreContext } from './score';

afterAll(() => closeSchemaRegExp());
beforeEach(() => resetSlowPatternWindow());

const schemas = new SchemaCache();
const ctx: ScoreContext = {
  keyOf: (ref) => toolKeyOf('b1', ref),
  labelOf: (ref) => `weather/${ref}`,
  argIssues: (_call, schema) => schemas.checkArgs(`t:${JSON.stringify(schema)}`, schema ?? {}, _call.args).issues,
};
const call = (args: unknown): EvalCall => ({ name: 'forecast', kind: 'tool', tool: 'weather/forecast@1', bundleId: 'b1', slug: 'forecast', args, status: 'ok' });
const caseOf = (args: Extract<EvalCase['expect'], { kind: 'tools' }>['tools'][number]['args']): EvalCase =>
  ({ expect: { kind: 'tools', tools: [{ tool: 'forecast', args }] } }) as EvalCase;

describe('checks that cannot be evaluated', () => {
  it('a JSONPath that cannot run, and a tool whose argSchema is gone, are marked unevaluable (failed, with why), not a plain fail', () => {
    const [, path] = scoreChoice(caseOf([{ kind: 'jsonPathEquals', path: 'city', value: 'Paris' }]), [call({ city: 'Paris' })], ctx);
    expect(path).toMatchObject({ passed: false, unevaluable: { code: 'VALIDATION_FAILED', message: "the JSONPath 'city' cannot be evaluated: a JSONPath must start with $; correct the check" } });
    const gone: ScoreContext = {
      ...ctx,
      argIssues: () => {
        throw new AppError('NOT_FOUND', 'weather/forecast@1 is gone from the registry: its argSchema cannot be read');
      },
    };
    const [, schema] = scoreChoice(caseOf([{ kind: 'schema' }]), [call({ city: 'Paris' })], gone);
    expect(schema).toMatchObject({ passed: false, unevaluable: { code: 'NOT_FOUND', message: "the arguments could not be checked against weather/forecast's argSchema: weather/forecast@1 is gone from the registry: its argSchema cannot be read" } });
  });

  it('an answer pattern that runs out of time is unevaluable, with a message about the answer check (not a schema)', () => {
    const [r] = scoreAnswer([{ kind: 'regex', pattern: '(?=(a+)+b)' }], 'a'.repeat(40));
    expect(r!.unevaluable).toMatchObject({ code: 'TIMEOUT' });
    expect(r!.message).toMatch(/^the answer check's pattern \/\(\?=\(a\+\)\+b\)\/ was stopped after \d+ ms on a 40-character answer: .*simplify the answer check's pattern$/);
    expect(r!.message).not.toContain('schema');
  });

  it('an answer pattern in any case runs in linear time: one that backtracks forever in JavaScript answers at once', () => {
    const [r] = scoreAnswer([{ kind: 'regex', pattern: '^(a+)+$', ignoreCase: true }], `${'A'.repeat(40)}b`);
    expect(r).toMatchObject({ passed: false, message: expect.stringMatching(/^expected the answer to match \/\^\(a\+\)\+\$\/i: it said/) });
    expect(r!.unevaluable).toBeUndefined();
    expect(scoreAnswer([{ kind: 'regex', pattern: '\\bPARIS\\b', ignoreCase: true }], 'Sunny in Paris.')[0]).toMatchObject({ passed: true });
  });
});

describe('argument checks drafted from a chat call (from-chat.ts) read back the key they name', () => {
  const keys = ['city', 'page[size]', 'filter[status]', 'lat,lon', "user's", '@type', '*', '$ref', 'a.b', 'a b', '', '0', '__proto__', 'constructor', 'x-y', 'é', '..', "['x']"];

  it('each passes on the call it was drafted from, fails on another value, and never reads another key', () => {
    for (const key of keys) {
      const args = JSON.parse(JSON.stringify({ [key]: { v: [1, 'two'] }, other: 5 })) as Record<string, unknown>;
      const checks = argChecks(args).filter((c) => c.kind !== 'jsonPathEquals' || c.path !== "$['other']");
      expect(checks, key).toHaveLength(1);
      const verdict = (a: unknown) => scoreChoice(caseOf(checks), [call(a)], ctx)[1]!;
      expect(verdict(args), key).toMatchObject({ passed: true });
      expect(verdict({ ...args, [key]: { v: [1, 'three'] } }).passed, key).toBe(false);
      // Without the key, nothing else (the other argument) stands in for it.
      expect(verdict(JSON.parse(JSON.stringify({ other: { v: [1, 'two'] } }))).passed, key).toBe(false);
      expect(verdict(args).unevaluable, key).toBeUndefined();
    }
  });

  it('a plain key is a JSONPath check (a diff shows both values); another a schema check of the key alone', () => {
    expect(argChecks({ city: 'Paris', 'page[size]': 10 })).toEqual([
      { kind: 'jsonPathEquals', path: "$['city']", value: 'Paris' },
      { kind: 'schema', schema: { type: 'object', required: ['page[size]'], properties: { 'page[size]': { const: 10 } } } },
    ]);
  });
});
