/**
 * What a script may try, each stopped or refused with a clear message while the core stays
 * responsive and nothing else is affected: endless loops, memory bombs, deep recursion, huge
 * results, reaching for the host, timers and promises that never end, requests to hosts that
 * are not allowed or private, and reading a secret's value. Nothing here asserts a time: the
 * limits are what the messages name, and responsiveness is counted in calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport } from '../invoke/http/transport';
import { fakeLookup, startHttpServer, type TestServer } from '../invoke/http/testing/servers';
import { useScriptKits, type ScriptKit } from './testing/script-kit';

let echo: TestServer;
beforeAll(async () => {
  echo = await startHttpServer((req, res, body) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-echo-key': String(req.headers['x-key'] ?? '') });
    res.end(JSON.stringify({ url: req.url, key: req.headers['x-key'] ?? null, body: body.toString('utf8') }));
  });
});
afterAll(() => echo.close());

const lookup = fakeLookup({ 'api.good.test': '127.0.0.1', 'sneaky.test': '127.0.0.1', 'other.test': '127.0.0.1' });
const kit = useScriptKits({ transport: new HttpTransport({ lookup }) });

/** For the tests of the time limit: short, so that they end soon. */
const FAST = { timeLimitMs: 800 };
/**
 * For every other test: a limit no loaded machine comes near (a first call starts its sandbox,
 * and ctx.fetch goes through a real socket), so such a test fails only for what it checks.
 */
const ROOMY = { timeLimitMs: 15_000 };

async function failure(k: ScriptKit, slug: string, source: string, limits: object = ROOMY): Promise<{ code: string; message: string; details?: unknown }> {
  await k.put(slug, source, { limits });
  const r = await k.invoke(slug);
  if (r.ok) throw new Error(`expected '${slug}' to fail, got ${JSON.stringify(r.value)}`);
  return r.error;
}

async function value(k: ScriptKit, slug: string, source: string, args: unknown = {}): Promise<unknown> {
  await k.put(slug, source, { limits: ROOMY });
  const r = await k.invoke(slug, args);
  if (!r.ok) throw new Error(`${slug}: ${r.error.code} ${r.error.message}`);
  return (r.value as { value: unknown }).value;
}

describe('a script that never ends', () => {
  it('is interrupted at its time limit while it loops, and the core answers other calls meanwhile (counted, not timed)', async () => {
    const k = await kit();
    await k.put('loop', 'function run() { for (;;) {} }', { limits: { timeLimitMs: 1500 } });
    await k.put('quick', 'function run(a) { return a.n + 1 }');
    const looping = k.invoke('loop');
    let settled = false;
    void looping.then(() => (settled = true));
    // While the loop runs: built-in calls and another script complete, one after another.
    let builtins = 0;
    let scripts = 0;
    while (!settled) {
      const calc = await k.core.call('tools.invoke', { bundleId: '01941f29-7c0f-7ad2-912a-3744428a5066', slug: 'calc', version: '1', args: { expression: '1 + 1' }, source: 'user' });
      if (calc.ok) builtins++;
      const q = await k.invoke('quick', { n: scripts });
      if (q.ok && (q.value as { value: unknown }).value === scripts + 1) scripts++;
    }
    const r = await looping;
    expect(r.ok || r.error).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/still computing at its time limit of 1500 ms and was stopped \(an endless loop\?\)/) });
    expect(builtins).toBeGreaterThan(3);
    expect(scripts).toBeGreaterThan(3);
    // The sandbox is usable again.
    const again = await k.invoke('quick', { n: 1 });
    expect(again.ok && (again.value as { value: unknown }).value).toBe(2);
  });

  it('waiting on a promise that never settles ends at its time limit, saying so', async () => {
    const k = await kit();
    const e = await failure(k, 'pending', 'function run() { return new Promise(() => {}) }', FAST);
    expect(e).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/did not finish within its time limit of 800 ms: it was waiting for a promise that never settled/) });
  });

  it('timers that never end: an interval keeps it waiting until its time limit; timers left when run returns are cleared', async () => {
    const k = await kit();
    const e = await failure(k, 'ticking', 'function run() { setInterval(() => {}, 5); return new Promise(() => {}) }', FAST);
    expect(e).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/waiting for 1 timer\(s\)/) });
    // A call that returns while its interval still ticks ends there; the next call hears no tick of it.
    await k.put('leaves-timer', 'let calls = 0; function run(a, ctx) { const n = ++calls; setInterval(() => ctx.log("tick of call " + n), 1); return new Promise((r) => setTimeout(r, 30)) }', { limits: ROOMY });
    const first = await k.invoke('leaves-timer');
    const second = await k.invoke('leaves-timer');
    if (!first.ok || !second.ok) throw new Error('expected both to run');
    const ticks = (r: typeof first) => ((r.value as { logs?: { text: string }[] }).logs ?? []).map((l) => l.text);
    expect(ticks(second).every((t) => t === 'tick of call 2')).toBe(true);
    expect(ticks(first).every((t) => t === 'tick of call 1')).toBe(true);
  });

  it('is cancelled at once, whether it computes or waits, and the next call runs', async () => {
    const k = await kit();
    for (const [slug, source] of [
      ['spin', 'function run() { for (;;) {} }'],
      ['wait', 'function run(a, ctx) { return new Promise((r) => ctx.signal.addEventListener("abort", () => ctx.log("aborted"))) }'],
    ] as const) {
      await k.put(slug, source, { limits: { timeLimitMs: 60_000 } });
      const invocationId = crypto.randomUUID();
      const running = k.invoke(slug, {}, { invocationId });
      // Cancel once the call is running.
      while (!k.core.dispatcher.runningIds().includes(invocationId)) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 50));
      const c = await k.core.call('invocations.cancel', { invocationId });
      expect(c).toEqual({ ok: true, value: { cancelled: true } });
      const r = await running;
      expect(r.ok || r.error.code).toBe('CANCELLED');
    }
    const after = await value(k, 'after', 'function run() { return "still fine" }');
    expect(after).toBe('still fine');
  });
});

describe('a script that reaches for more than it has', () => {
  it('a memory bomb stops at the memory limit', async () => {
    const k = await kit();
    for (const [slug, source] of [
      ['bomb-array', 'function run() { const a = []; for (;;) a.push({ n: a.length, s: "x" + a.length }); }'],
      ['bomb-string', 'function run() { let s = "x"; for (;;) s += s; }'],
    ] as const) {
      const e = await failure(k, slug, source, { timeLimitMs: 30_000, memoryLimitMb: 16 });
      expect(e).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/used more than its memory limit of 16 MB and was stopped/) });
    }
  });

  it('deep recursion stops with a stack overflow, not a crash', async () => {
    const k = await kit();
    const e = await failure(k, 'deep', 'function f(n) { return f(n + 1) + 1 } function run() { return f(0) }');
    expect(e).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/recursed too deeply \(stack overflow\)/) });
  });

  it('a huge result is refused at its output limit', async () => {
    const k = await kit();
    const e = await failure(k, 'huge', 'function run() { return { text: "y".repeat(4 * 1024 * 1024) } }', { timeLimitMs: 5000, memoryLimitMb: 64, maxOutputBytes: 1024 * 1024 });
    expect(e).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/result is 4194315 bytes as JSON; this tool returns at most 1048576 bytes/) });
  });

  it('the host is out of reach: no process, require, fs, Buffer or fetch of its own, globalThis is its own, constructor.constructor reaches nothing', async () => {
    const k = await kit();
    const seen = await value(
      k,
      'peek',
      `function run() {
        const F = this && this.constructor ? this.constructor.constructor : Function;
        const viaConstructor = (() => { try { return typeof ({}).constructor.constructor('return process')(); } catch (e) { return 'threw ' + e.name; } })();
        const viaFunction = (() => { try { return typeof F('return this')().process; } catch (e) { return 'threw ' + e.name; } })();
        return {
          process: typeof process, Buffer: typeof Buffer, module: typeof module, globalProcess: typeof globalThis.process,
          viaConstructor, viaFunction, os: typeof os, importMeta: (() => { try { return eval('typeof import.meta'); } catch (e) { return 'threw ' + e.name; } })(),
        };
      }`,
    );
    expect(seen).toEqual({ process: 'undefined', Buffer: 'undefined', module: 'undefined', globalProcess: 'undefined', viaConstructor: 'threw ReferenceError', viaFunction: 'undefined', os: 'undefined', importMeta: 'threw SyntaxError' });
    const req = await failure(k, 'req', 'function run() { return require("fs").readFileSync("/etc/passwd", "utf8") }');
    expect(req).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/require is not available in a script tool/) });
    const f = await failure(k, 'own-fetch', 'async function run() { return await fetch("http://example.com") }');
    expect(f).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/fetch is not available in a script tool: use ctx\.fetch/) });
    const imp = await failure(k, 'imp', 'async function run() { return await import("fs") }');
    expect(imp.message).toMatch(/(not supported|cannot|could not|module)/i);
  });
});

describe('ctx.fetch', () => {
  it('refuses a host not allowed and one whose address is private, and sends nothing', async () => {
    const k = await kit();
    await k.core.settings.set({ allowedHosts: [`private:api.good.test:${echo.port}`, `sneaky.test:${echo.port}`] });
    const before = echo.requests.length;
    const notAllowed = await failure(k, 'f1', `async function run(a, ctx) { return (await ctx.fetch("http://other.test:${echo.port}/x")).status }`);
    expect(notAllowed).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/^'f1': ToolError: ctx\.fetch: .*other\.test/) });
    const privateAddr = await failure(k, 'f2', `async function run(a, ctx) { return (await ctx.fetch("http://sneaky.test:${echo.port}/x")).status }`);
    expect(privateAddr).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/ctx\.fetch: .*(private|loopback)/i) });
    const literal = await failure(k, 'f3', 'async function run(a, ctx) { return (await ctx.fetch("http://169.254.169.254/latest/meta-data")).status }');
    expect(literal.code).toBe('FORBIDDEN');
    expect(echo.requests.length).toBe(before);
    // An allowed host answers, status and headers and body as the server sent them.
    const ok = await value(k, 'f4', `async function run(a, ctx) { const r = await ctx.fetch("http://api.good.test:${echo.port}/hello?x=1", { method: "POST", body: { q: 1 } }); return { status: r.status, ok: r.ok, json: await r.json(), type: r.headers["content-type"] } }`);
    expect(ok).toEqual({ status: 200, ok: true, json: { url: '/hello?x=1', key: null, body: '{"q":1}' }, type: 'application/json' });
  });

  it('puts a secret in a header on the host side; the script never reads its value, not even echoed back', async () => {
    const k = await kit();
    await k.core.settings.set({ allowedHosts: [`private:api.good.test:${echo.port}`] });
    await k.core.secrets.set('API_KEY', 'sk-very-secret-value-123', ['api.good.test']);
    const before = echo.requests.length;
    const seen = await value(
      k,
      'with-key',
      `async function run(a, ctx) {
        const r = await ctx.fetch("http://api.good.test:${echo.port}/k?key=\${secret:API_KEY}", { headers: { "X-Key": "\${secret:API_KEY}" } });
        const body = await r.json();
        ctx.log("the key I see:", body.key, r.headers["x-echo-key"]);
        return { body, header: r.headers["x-echo-key"], literal: "\${secret:API_KEY}" };
      }`,
    );
    // The server got the real value, in the header and in the URL.
    const got = echo.requests.slice(before);
    expect(got).toHaveLength(1);
    expect(got[0]!.headers['x-key']).toBe('sk-very-secret-value-123');
    expect(got[0]!.url).toBe('/k?key=sk-very-secret-value-123');
    // The script saw it redacted everywhere; a placeholder it merely writes stays text.
    expect(seen).toEqual({ body: { url: '/k?key=[redacted]', key: '[redacted]', body: '' }, header: '[redacted]', literal: '${secret:API_KEY}' });
    expect(JSON.stringify(seen)).not.toContain('sk-very-secret');
    // Into the body it may not go; to a host it is not bound to it may not go.
    const inBody = await failure(k, 'key-in-body', `async function run(a, ctx) { return (await ctx.fetch("http://api.good.test:${echo.port}/", { method: "POST", body: "k=\${secret:API_KEY}" })).status }`);
    expect(inBody).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/may stand in the URL or a header value, not in the body/) });
    await k.core.settings.set({ allowedHosts: [`private:api.good.test:${echo.port}`, `private:other.test:${echo.port}`] });
    const elsewhere = await failure(k, 'key-elsewhere', `async function run(a, ctx) { return (await ctx.fetch("http://other.test:${echo.port}/", { headers: { "X-Key": "\${secret:API_KEY}" } })).status }`);
    expect(elsewhere.code).toBe('FORBIDDEN');
    expect(JSON.stringify(elsewhere)).not.toContain('sk-very-secret');
  });
});
