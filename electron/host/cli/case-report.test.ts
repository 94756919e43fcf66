import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Bundle } from '../../../shared/model/bundle';
import { useTempDirs } from '../../core/testing/temp-dir';
import { bundlesToRun, finishRun, parseReport, type RunEnd } from './case-report';
import { EXIT } from './session';

const tempDir = useTempDirs();

/** What finishRun writes to stdout and stderr. */
function captured() {
  const stdout: string[] = [];
  const stderr: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => (stdout.push(String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => (stderr.push(String(s)), true));
  return { stdout, stderr };
}
afterEach(() => vi.restoreAllMocks());

const end = (over: Partial<RunEnd> = {}): RunEnd => ({
  summary: 'PASS  a\n1 case',
  junit: () => '<testsuites/>\n',
  json: { passed: 1 },
  none: false,
  failed: false,
  names: [],
  noCases: (where) => `No cases in ${where}: write some`,
  ...over,
});

describe('the end of `toolsmith test` and `toolsmith eval`', () => {
  it('reads --reporter, --json and --out; refuses another reporter, or --json with another', () => {
    expect(parseReport({})).toEqual({ reporter: 'text' });
    expect(parseReport({ json: true, out: 'r.json' })).toEqual({ reporter: 'json', target: path.resolve('r.json') });
    expect(parseReport({ reporter: 'junit' })).toEqual({ reporter: 'junit' });
    expect(() => parseReport({ reporter: 'tap' })).toThrow(expect.objectContaining({ message: "--reporter must be one of text, junit, json: got 'tap'", exitCode: EXIT.usage }));
    expect(() => parseReport({ json: true, reporter: 'junit' })).toThrow('--json is --reporter json: give one of them');
  });

  it('runs the bundles named, each once, or every one switched on and not deleted', async () => {
    const b = (slug: string, over: Partial<Bundle> = {}) => ({ id: slug, slug, isEnabled: true, ...over }) as Bundle;
    const all = [b('on'), b('off', { isEnabled: false }), b('gone', { softDeletedAt: '2026-01-01T00:00:00Z' })];
    const s = { allBundles: async () => all, bundle: async (name: string) => all.find((x) => x.slug === name)! };
    expect((await bundlesToRun(s, [])).map((x) => x.slug)).toEqual(['on']);
    expect((await bundlesToRun(s, ['off', 'on', 'off'])).map((x) => x.slug)).toEqual(['off', 'on']);
  });

  it('prints the summary, or the report on stdout and the summary on stderr; with --out writes the report and says where', async () => {
    let io = captured();
    expect(await finishRun({ reporter: 'text' }, end())).toBe(EXIT.ok);
    expect([io.stdout.join(''), io.stderr.join('')]).toEqual(['PASS  a\n1 case\n', '']);
    vi.restoreAllMocks();

    io = captured();
    expect(await finishRun({ reporter: 'junit' }, end({ failed: true }))).toBe(EXIT.failed);
    expect([io.stdout.join(''), io.stderr.join('')]).toEqual(['<testsuites/>\n', 'PASS  a\n1 case\n']);
    vi.restoreAllMocks();

    const dir = await tempDir();
    const target = path.join(dir, 'deep', 'report.json');
    io = captured();
    expect(await finishRun({ reporter: 'json', target }, end())).toBe(EXIT.ok);
    expect(JSON.parse(await fs.readFile(target, 'utf8'))).toEqual({ passed: 1 });
    expect(io.stdout.join('')).toBe(`PASS  a\n1 case\nWrote the JSON report to ${target}.\n`);
    vi.restoreAllMocks();

    captured();
    await finishRun({ reporter: 'text', target: path.join(dir, 'summary.txt') }, end());
    expect(await fs.readFile(path.join(dir, 'summary.txt'), 'utf8')).toBe('PASS  a\n1 case\n');
    await fs.writeFile(path.join(dir, 'file'), '');
    await expect(finishRun({ reporter: 'junit', target: path.join(dir, 'file', 'junit.xml') }, end())).rejects.toThrow(/^could not write .*junit\.xml: /);
  });

  it('no case to run fails, naming where it looked, unless --pass-with-no-tests', async () => {
    const io = captured();
    expect(await finishRun({ reporter: 'text' }, end({ none: true, names: ['a', 'b'] }))).toBe(EXIT.failed);
    expect(io.stderr.join('')).toBe("No cases in bundles 'a', 'b': write some (--pass-with-no-tests makes this a pass).\n");
    expect(await finishRun({ reporter: 'text' }, end({ none: true }))).toBe(EXIT.failed);
    expect(io.stderr.at(-1)).toBe('No cases in the bundles switched on: write some (--pass-with-no-tests makes this a pass).\n');
    expect(await finishRun({ reporter: 'text' }, end({ none: true, passWithNoTests: true }))).toBe(EXIT.ok);
  });
});
