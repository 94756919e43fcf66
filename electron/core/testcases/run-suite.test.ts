import { describe, expect, it } from 'vitest';
import type { Bundle } from '../../../shared/model/bundle';
import type { TestCase } from '../../../shared/model/testcase';
import type { ToolView } from '../../../shared/model/tool';
import type { InvokeOutcome } from '../invoke/dispatcher';
import { junitTimestamp, suiteToJUnit, xmlText } from './junit';
import { runSuite, versionToRun, type SuiteProgress } from './run-suite';

const AT = '2025-01-01T00:00:00.000Z';
const bundle = (slug: string, id: string): Bundle => ({ id, slug, displayName: slug, description: '', isEnabled: true, isBuiltIn: false, createdAt: AT, modifiedAt: AT });
const tool = (bundleId: string, slug: string, version: string, isEnabled = true): ToolView =>
  ({ id: `${slug}@${version}`, bundleId, slug, version, isEnabled, modifiedAt: AT, outputSchema: {} }) as unknown as ToolView;
const tc = (name: string, args: unknown, words: number): TestCase => ({ id: name, name, args, assertions: [{ kind: 'jsonPathEquals', path: '$.words', value: words }], createdAt: AT, updatedAt: AT });

describe('versionToRun', () => {
  it('takes the newest version switched on, versions compared as numbers; the newest when none is on', () => {
    const versions = [tool('b', 'x', '9'), tool('b', 'x', '10'), tool('b', 'x', '2'), tool('b', 'y', '11')];
    expect(versionToRun(versions, 'x')?.version).toBe('10');
    expect(versionToRun([tool('b', 'x', '1'), tool('b', 'x', '2', false)], 'x')?.version).toBe('1');
    expect(versionToRun([tool('b', 'x', '1', false), tool('b', 'x', '2', false)], 'x')?.version).toBe('2');
    expect(versionToRun(versions, 'z')).toBeUndefined();
    expect(versionToRun([tool('b', 'x', '1.0.0'), tool('b', 'x', '1.0.0-beta')], 'x')?.version).toBe('1.0.0');
  });
});

describe('runSuite', () => {
  const a = bundle('alpha', 'id-a');
  const b = bundle('beta', 'id-b');
  const saved: Record<string, { slug: string; cases: TestCase[] }[]> = {
    'id-a': [
      { slug: 'count', cases: [tc('two words', 'a b', 2), tc('wrong count', 'a b', 3)] },
      { slug: 'draft', cases: [tc('never saved', '', 0)] },
    ],
    'id-b': [{ slug: 'count', cases: [tc('one word', 'a', 1)] }],
  };
  const tools = [tool('id-a', 'count', '1'), tool('id-a', 'count', '2'), tool('id-b', 'count', '1')];
  const calls: string[] = [];
  const deps = {
    cases: { listBundle: async (id: string) => saved[id] ?? [] },
    tools: { toolsOf: (id: string) => tools.filter((t) => t.bundleId === id) },
    invoke: async (r: { bundleId: string; slug: string; version: string; args: unknown }): Promise<InvokeOutcome> => {
      calls.push(`${r.bundleId}/${r.slug}@${r.version}`);
      return { ok: true, value: { words: String(r.args).split(' ').length }, invocationId: 'i', durationMs: 3, attempts: 1 };
    },
  };

  it('runs each slug of each bundle against its newest version, skips slugs without one, and tells its progress', async () => {
    calls.length = 0;
    const progress: SuiteProgress[] = [];
    const suite = await runSuite(deps, { bundles: [a, b], onProgress: (p) => progress.push(p) });
    expect(calls).toEqual(['id-a/count@2', 'id-a/count@2', 'id-b/count@1']);
    expect([suite.passed, suite.failed, suite.skipped]).toEqual([2, 1, 1]);
    expect(suite.tools.map((t) => [t.bundleSlug, t.slug, t.version, t.passed, t.failed, t.skipped])).toEqual([
      ['alpha', 'count', '2', 1, 1, undefined],
      ['alpha', 'draft', undefined, 0, 0, "'alpha' has no saved version of 'draft'"],
      ['beta', 'count', '1', 1, 0, undefined],
    ]);
    expect(progress.map((p) => (p.kind === 'plan' ? `plan ${p.tools} tools, ${p.cases} cases` : p.kind === 'case' ? `case ${p.result.name} ${p.result.passed}` : p.kind === 'case-start' ? `start ${p.name}` : `tool ${p.bundleSlug}/${p.slug}`))).toEqual([
      'plan 3 tools, 4 cases',
      'tool alpha/count',
      'start two words',
      'case two words true',
      'start wrong count',
      'case wrong count false',
      'tool alpha/draft',
      'tool beta/count',
      'start one word',
      'case one word true',
    ]);
    // Each step names its bundle by id too (two bundles may share a slug).
    expect(progress.filter((p) => p.kind === 'case').map((p) => (p.kind === 'case' ? p.bundleId : ''))).toEqual(['id-a', 'id-a', 'id-b']);
  });

  it('skips, saying so, the cases of a switched-off bundle or of a tool none of whose versions is on', async () => {
    calls.length = 0;
    const off = { ...b, isEnabled: false };
    const offTools = { toolsOf: (id: string) => (id === 'id-a' ? [tool('id-a', 'count', '1', false)] : tools.filter((t) => t.bundleId === id)) };
    const suite = await runSuite({ ...deps, tools: offTools }, { bundles: [a, off] });
    expect(calls).toEqual([]);
    expect(suite.tools.map((t) => [t.bundleSlug, t.slug, t.skipped])).toEqual([
      ['alpha', 'count', "'alpha/count' is switched off: switch it on to test it"],
      ['alpha', 'draft', "'alpha' has no saved version of 'draft'"],
      ['beta', 'count', "bundle 'beta' is switched off: switch it on to test it (toolsmith bundles enable beta)"],
    ]);
    expect([suite.passed, suite.failed]).toEqual([0, 0]);
  });

  it('reports the cases a cancelled suite did not reach as not run', async () => {
    const ctrl = new AbortController();
    const suite = await runSuite(
      { ...deps, invoke: async (r) => (ctrl.abort(), deps.invoke(r)) },
      { bundles: [a, b], signal: ctrl.signal },
    );
    expect([suite.passed, suite.failed]).toEqual([1, 2]);
    expect(suite.tools[2]!.results[0]!.assertions[0]!.message).toBe('not run: the test run was cancelled');
    expect(suite.tools[2]!.results[0]!.cancelled).toBe(true);
    // In JUnit a case never reached is an error, not an assertion's failure.
    const xml = suiteToJUnit(suite);
    expect(xml).toContain('<testsuites name="toolsmith" tests="4" failures="0" errors="2" skipped="1"');
    expect(xml).toContain('<testcase name="one word" classname="beta.count" time="0.000">\n      <error message="not run: the test run was cancelled" type="cancelled"/>');
    expect(xml).toContain('<testsuite name="beta/count@1" tests="1" failures="0" errors="1" skipped="0"');
  });

  it('reports a case whose tool could not be reached as an <error>, and a server that answered 503 as a <failure>', async () => {
    const refused = { code: 'UNAVAILABLE' as const, message: "could not connect to '127.0.0.1:9' (connection refused): check that the server is running and the port is right", details: { host: '127.0.0.1:9', cause: 'ECONNREFUSED' } };
    const answered503 = { code: 'UNAVAILABLE' as const, message: 'GET 127.0.0.1/x answered 503', details: { status: 503, attempts: 1 } };
    const outcomes = [refused, answered503];
    const failing = {
      cases: { listBundle: async () => [{ slug: 'count', cases: [tc('one word', 'a', 1)] }] },
      tools: { toolsOf: (id: string) => [tool(id, 'count', '1')] },
      invoke: async (): Promise<InvokeOutcome> => ({ ok: false, error: outcomes.shift()!, invocationId: 'i', durationMs: 1, attempts: 1 }),
    };
    const suite = await runSuite(failing, { bundles: [b, { ...b, id: 'id-b2', slug: 'beta2' }] });
    expect(suite.failed).toBe(2);
    expect(suite.tools[0]!.results[0]!.unreachable).toEqual({ code: 'UNAVAILABLE', message: refused.message });
    expect(suite.tools[1]!.results[0]!.unreachable).toBeUndefined();
    const xml = suiteToJUnit(suite);
    expect(xml).toContain('<testsuites name="toolsmith" tests="2" failures="1" errors="1" skipped="0"');
    expect(xml).toContain(`<error message="the tool could not be reached: ${xmlText(refused.message)}" type="UNAVAILABLE"/>`);
    expect(xml).toContain('<testsuite name="beta2/count@1" tests="1" failures="1" errors="0"');
  });

  it('writes JUnit XML with every name escaped, and characters XML cannot hold replaced', async () => {
    const suite = await runSuite(deps, { bundles: [a] });
    suite.tools[0]!.results[1]!.name = 'a "quoted" <name> & \u0001 bell';
    const xml = suiteToJUnit(suite);
    expect(xml).toContain('<testcase name="a &quot;quoted&quot; &lt;name&gt; &amp; \uFFFD bell" classname="alpha.count"');
    expect(xml).toContain('<testsuites name="toolsmith" tests="3" failures="1" errors="0" skipped="1"');
    // xs:dateTime as the JUnit schema writes it: no zone, no fraction.
    expect(xml).toMatch(/<testsuites [^>]* timestamp="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d">/);
    expect(junitTimestamp('2026-11-24T15:46:03.120Z')).toBe('2026-11-24T15:46:03');
    expect(xml).toContain('<failure message="expected $.words to equal 3, got 2" type="assertion">');
    expect(xml).toContain('<skipped message="&apos;alpha&apos; has no saved version of &apos;draft&apos;"/>');
    expect(xmlText("line\nnext\ttab 'x'")).toBe('line&#10;next&#9;tab &apos;x&apos;');
    expect(xmlText('\uD800 lone')).toBe('\uFFFD lone');
  });
});
