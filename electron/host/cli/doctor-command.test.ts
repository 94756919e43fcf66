/**
 * `toolsmith tools doctor`, run in this process on a temp data folder: the findability report
 * as text (grouped by kind, each finding with its suggestion) and as JSON, exit 1 on a
 * high-severity finding and 0 without one, `--bundle` limiting what is reported on. (The
 * command as a child process: ../cli.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { OpInput } from '../../../shared/contract';
import type { FindabilityReport } from '../../../shared/model/findability';
import { createCore } from '../../core/app';
import { bundleBody, localToolBody, newId } from '../../core/bundles/testing/fixtures';
import { RESOURCES_DIR, useTempDirs } from '../../core/testing/temp-dir';
import { useCapturedOutput } from '../testing/captured-output';
import { runCliProcess } from './run-process';

const tempDir = useTempDirs();
const SLOW = 120_000;
const io = useCapturedOutput();

function run(argv: string[]): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    runCliProcess(argv, { exit: resolve }).catch(reject);
  });
}

/** Bundles `good` (one well-described tool) and `mine` (one with neither a description nor a name). */
async function seed(dir: string): Promise<void> {
  const core = await createCore({ dataDir: dir, resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
  try {
    const put = async (slug: string, tools: [string, string, string][]) => {
      const bundleId = newId();
      const b = await core.call('bundles.put', { bundleId, body: bundleBody({ slug, displayName: slug }) as OpInput<'bundles.put'>['body'] });
      if (!b.ok) throw new Error(b.error.message);
      for (const [toolSlug, displayName, description] of tools) {
        const body = localToolBody({ local: { functionId: 'text.count' }, displayName, description }) as OpInput<'tools.put'>['body'];
        const r = await core.call('tools.put', { bundleId, slug: toolSlug, version: '1', body });
        if (!r.ok) throw new Error(r.error.message);
      }
    };
    await put('good', [['convert-currency', 'Convert currency', 'Converts an amount of money from one currency to another at today’s exchange rate.']]);
    await put('mine', [['tool1', 'Tool 1', '']]);
  } finally {
    await core.close();
  }
}

describe('toolsmith tools doctor', () => {
  it('prints the findings by kind with their suggestions and exits 1 on a high-severity one; --json is the report; --bundle limits it', { timeout: SLOW }, async () => {
    const dir = await tempDir();
    await seed(dir);
    const common = ['--data-dir', dir, '--resources', RESOURCES_DIR];

    expect(await run(['tools', 'doctor', ...common]), io.err).toBe(1);
    expect(io.out).toContain('No description (1)\n  HIGH    mine/tool1@1\n');
    expect(io.out).toContain('→ Write one or two sentences: what it does and to what, what it returns, and when to use it');
    expect(io.out).toContain('Names that say nothing (1)\n  MEDIUM  mine/tool1@1\n');
    expect(io.out).toMatch(/\d+ findings? \(1 high, \d+ medium, \d+ low\): 2 tools checked, ranked among \d+ \(built-in tools included\)\.\n$/);
    expect(io.out).not.toContain('good/convert-currency');

    io.out = '';
    expect(await run(['tools', 'doctor', '--json', ...common])).toBe(1);
    const report = JSON.parse(io.out) as FindabilityReport;
    expect(report.checked).toBe(2);
    expect(report.counts.high).toBe(1);
    expect(report.findings[0]).toMatchObject({ kind: 'empty-description', severity: 'high', tools: [{ bundleSlug: 'mine', slug: 'tool1', version: '1', isBuiltIn: false }] });

    // Only the well-described bundle: nothing to report, exit 0.
    io.out = '';
    expect(await run(['tools', 'doctor', '--bundle', 'good', ...common]), io.err).toBe(0);
    expect(io.out).toMatch(/^No findings: 1 tool checked, ranked among \d+ \(built-in tools included\)\.\n$/);

    io.err = '';
    expect(await run(['tools', 'doctor', '--bundle', 'nosuch', ...common])).toBe(1);
    expect(io.err).toContain("toolsmith: no bundle named 'nosuch'");
  });
});
