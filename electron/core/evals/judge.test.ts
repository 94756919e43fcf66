import { describe, expect, it } from 'vitest';
import type { ModelClient, ModelClientFactory } from '../llm/types';
import { askJudge, readVerdict } from './judge';

describe("the judge's verdict", () => {
  it('is the JSON object it answers, words and a code fence around it tolerated', () => {
    expect(readVerdict('```json\n{"pass": true, "reason": "It says sunny."}\n```')).toEqual({ pass: true, reason: 'It says sunny.' });
    expect(readVerdict('Here it is: {"pass": false, "reason": "No {temperatures} given."} Done.')).toEqual({ pass: false, reason: 'No {temperatures} given.' });
  });

  it('leaves its thinking out: a verdict weighed inside <think> does not count', () => {
    expect(readVerdict('<think>At first {"pass": true} seemed right, but no.</think>{"pass": false, "reason": "No temperatures."}')).toEqual({ pass: false, reason: 'No temperatures.' });
    expect(() => readVerdict('<think>maybe {"pass": true}')).toThrow(/did not answer with the JSON asked for/);
  });

  it('is the last object with a boolean pass when several agree; verdicts that disagree are an error', () => {
    expect(readVerdict('{"pass": true, "reason": "first"} and again {"pass": true, "reason": "second"}')).toEqual({ pass: true, reason: 'second' });
    expect(readVerdict('{"note": "x"} {"pass": false, "reason": "r"}')).toEqual({ pass: false, reason: 'r' });
    expect(() => readVerdict('{"pass": true, "reason": "a"}\n{"pass": false, "reason": "b"}')).toThrow('the judge gave verdicts that disagree (pass and fail) instead of one');
    expect(() => readVerdict('"pass": true ... "pass": false')).toThrow('disagree');
  });

  it('falls back on the "pass" field of a reply that is not whole JSON', () => {
    expect(readVerdict('{"pass": true, "reason": "it says "sunny""}')).toEqual({ pass: true, reason: '(the reply was not whole JSON)' });
  });
});

describe('asking the judge', () => {
  it('within the time given: a judge that does not answer in time is a TIMEOUT, its request aborted', async () => {
    let aborted = false;
    const client: ModelClient = {
      listModels: async () => [],
      step: (_req, _onText, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          });
        }),
    };
    const clients: ModelClientFactory = { forProvider: () => client };
    const asked = askJudge(clients, { model: { providerId: 'p', model: 'judge' }, rubric: 'r', prompt: 'p', calls: [], answer: 'a', signal: new AbortController().signal, timeoutMs: 20 });
    await expect(asked).rejects.toMatchObject({ code: 'TIMEOUT', message: "it did not answer within 20 ms (the case's time limit)" });
    expect(aborted).toBe(true);
  });
});

describe('a verdict among stray braces', () => {
  it('is found after an unbalanced brace in the words before it, and inside an object that is not JSON', () => {
    expect(readVerdict('Use {x to check. {"pass": true, "reason": "fine"}')).toEqual({ pass: true, reason: 'fine' });
    expect(readVerdict('{verdict: {"pass": false, "reason": "no"}}')).toEqual({ pass: false, reason: 'no' });
  });
});
