/** Questions a server asks the user: the form subset, answers checked, and the bounds on waiting. */
import { describe, expect, it, vi } from 'vitest';
import { elicitationContentProblem, elicitationDefaults, elicitationFields } from '../../../shared/model/elicitation';
import { ElicitationQueue, FLOOD_MAX, MAX_WAITING_PER_SERVER } from './elicitation';

const form = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2 },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 0, maximum: 150, default: 30 },
    agree: { type: 'boolean', default: false },
    color: { type: 'string', enum: ['red', 'green'], enumNames: ['Red', 'Green'], default: 'green' },
    size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }, { const: 'l', title: 'Large' }] },
    tags: { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }, { const: 'b', title: 'B' }] }, maxItems: 1 },
  },
  required: ['name', 'email'],
};

describe('the form subset', () => {
  it('reads every kind a form can ask for, with titles, bounds, options and defaults', () => {
    const fields = elicitationFields(form);
    expect(Array.isArray(fields)).toBe(true);
    if (!Array.isArray(fields)) return;
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['name', 'string', true],
      ['email', 'string', true],
      ['age', 'number', false],
      ['agree', 'boolean', false],
      ['color', 'enum', false],
      ['size', 'enum', false],
      ['tags', 'multi', false],
    ]);
    expect(fields[4]).toMatchObject({ options: [{ value: 'red', label: 'Red' }, { value: 'green', label: 'Green' }], default: 'green' });
    expect(fields[5]).toMatchObject({ options: [{ value: 's', label: 'Small' }, { value: 'l', label: 'Large' }] });
    expect(elicitationDefaults(fields)).toEqual({ age: 30, agree: false, color: 'green' });
  });

  it('refuses what a form cannot ask, saying why', () => {
    expect(elicitationFields({ type: 'object', properties: { a: { type: 'object', properties: {} } } })).toMatch(/the type 'object' is not one a form can ask for/);
    expect(elicitationFields({ type: 'object', properties: { a: { type: 'string', format: 'ipv4' } } })).toMatch(/format 'ipv4'/);
    expect(elicitationFields({ type: 'object', properties: { a: { type: 'array', items: { type: 'number' } } } })).toMatch(/multiple choice of text options/);
    expect(elicitationFields({ type: 'object', properties: {}, required: ['x'] })).toMatch(/requires 'x'/);
    expect(elicitationFields({ type: 'string' })).toMatch(/object schema/);
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, { type: 'string' }]));
    expect(elicitationFields({ type: 'object', properties: many })).toMatch(/at most 32/);
    expect(elicitationFields({ type: 'object', properties: { a: { type: 'string', enum: ['x', 'x'] } } })).toMatch(/listed twice/);
  });

  it('checks an answer against the form', () => {
    const fields = elicitationFields(form);
    if (!Array.isArray(fields)) throw new Error(fields);
    expect(elicitationContentProblem(fields, { name: 'Ada', email: 'ada@example.com', tags: ['a'] })).toBeUndefined();
    expect(elicitationContentProblem(fields, { email: 'ada@example.com' })).toBe('Name: required');
    expect(elicitationContentProblem(fields, { name: 'A', email: 'ada@example.com' })).toBe('Name: at least 2 characters');
    expect(elicitationContentProblem(fields, { name: 'Ada', email: 'nope' })).toBe('email: an e-mail address is expected');
    expect(elicitationContentProblem(fields, { name: 'Ada', email: 'a@b.co', age: 3.5 })).toBe('age: a whole number is expected');
    expect(elicitationContentProblem(fields, { name: 'Ada', email: 'a@b.co', color: 'blue' })).toBe('color: one of the options is expected');
    expect(elicitationContentProblem(fields, { name: 'Ada', email: 'a@b.co', tags: ['a', 'b'] })).toBe('tags: choose at most 1');
    expect(elicitationContentProblem(fields, { name: 'Ada', email: 'a@b.co', extra: 1 })).toBe("the form has no field 'extra'");
    const when = elicitationFields({ type: 'object', properties: { at: { type: 'string', format: 'date-time' } } });
    if (!Array.isArray(when)) throw new Error(when);
    // RFC 3339, with seconds and a zone, as servers check it; a browser's local form is not.
    expect(elicitationContentProblem(when, { at: '2026-11-29T10:30:00Z' })).toBeUndefined();
    expect(elicitationContentProblem(when, { at: '2026-11-29T10:30:00.000+01:00' })).toBeUndefined();
    expect(elicitationContentProblem(when, { at: '2026-11-29T10:30' })).toBe('at: a date and time is expected');
  });
});

describe('the questions waiting in the app', () => {
  const ask = { bundleId: 'b1', server: 'Server', tool: 'book', params: { mode: 'form', message: 'Who are you?', requestedSchema: form } };

  function queue(timeoutMs = 60_000) {
    const events: string[] = [];
    const q = new ElicitationQueue({ now: () => new Date(), timeoutMs, onEvent: (_b, t) => events.push(t) });
    return { q, events };
  }

  it('cancels at once when no window can answer', async () => {
    const { q, events } = queue();
    expect(await q.ask(ask)).toEqual({ action: 'cancel' });
    expect(events[0]).toMatch(/no Toolsmith window is open/);
  });

  it('waits for the user; an answer that does not fit is refused and the question keeps waiting; a fitting one is sent without empty optional fields', async () => {
    const { q } = queue();
    q.attachWindow();
    const answer = q.ask(ask);
    const [req] = q.list();
    expect(req).toMatchObject({ server: 'Server', tool: 'book', mode: 'form', message: 'Who are you?' });
    expect(() => q.respond(req!.id, { action: 'accept', content: { name: 'Ada', email: 'x' } })).toThrow(/e-mail address/);
    expect(q.list()).toHaveLength(1);
    expect(q.respond(req!.id, { action: 'accept', content: { name: 'Ada', email: 'ada@example.com', size: '' } })).toBe(true);
    expect(await answer).toEqual({ action: 'accept', content: { name: 'Ada', email: 'ada@example.com' } });
    expect(q.list()).toEqual([]);
  });

  it('ends a question on decline, on its time limit, on its call’s cancel, and when the last window closes', async () => {
    vi.useFakeTimers();
    try {
      const { q } = queue(1_000);
      const detach = q.attachWindow();
      const declined = q.ask(ask);
      q.respond(q.list()[0]!.id, { action: 'decline' });
      expect(await declined).toEqual({ action: 'decline' });
      const late = q.ask(ask);
      vi.advanceTimersByTime(1_001);
      expect(await late).toEqual({ action: 'cancel' });
      const ctl = new AbortController();
      const cancelled = q.ask(ask, ctl.signal);
      ctl.abort();
      expect(await cancelled).toEqual({ action: 'cancel' });
      const closing = q.ask(ask);
      detach();
      expect(await closing).toEqual({ action: 'cancel' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('bounds a server that asks in a loop: a few wait at once, and past the flood limit it is declined without asking', async () => {
    const { q, events } = queue();
    q.attachWindow();
    const waiting = Array.from({ length: MAX_WAITING_PER_SERVER }, () => q.ask(ask));
    expect(q.list()).toHaveLength(MAX_WAITING_PER_SERVER);
    expect(await q.ask(ask)).toEqual({ action: 'decline' });
    expect(events.some((e) => /questions waiting: declined/.test(e))).toBe(true);
    for (const r of q.list()) q.respond(r.id, { action: 'cancel' });
    await Promise.all(waiting);
    for (let i = MAX_WAITING_PER_SERVER + 1; i < FLOOD_MAX; i++) {
      const p = q.ask(ask);
      q.respond(q.list()[0]!.id, { action: 'cancel' });
      await p;
    }
    expect(await q.ask(ask)).toEqual({ action: 'decline' });
    for (let i = 0; i < 50; i++) expect(await q.ask(ask)).toEqual({ action: 'decline' });
    // Said once for the burst, not once per question.
    expect(events.filter((e) => /more than 10 questions/.test(e))).toHaveLength(1);
  });

  it('refuses a form outside the subset and a URL that is not http(s), before asking', () => {
    const { q } = queue();
    q.attachWindow();
    expect(() => q.ask({ ...ask, params: { mode: 'form', message: 'x', requestedSchema: { type: 'object', properties: { a: { type: 'object' } } } } })).toThrow(/cannot show/);
    expect(() => q.ask({ ...ask, params: { mode: 'url', message: 'x', url: 'javascript:alert(1)', elicitationId: 'e' } })).toThrow(/not an http\(s\) address/);
    expect(() => q.ask({ ...ask, params: { mode: 'url', message: 'x', url: 'https://github.com:443@evil.example/', elicitationId: 'e' } })).toThrow(/user name or password/);
    expect(() => q.ask({ ...ask, params: { mode: 'url', message: 'x', url: `https://example.com/${'a'.repeat(3000)}`, elicitationId: 'e' } })).toThrow(/longer than 2000/);
    expect(q.list()).toEqual([]);
  });
});
