/**
 * "Tools not brought in": every tool of a server's list that is not stored is reported with its
 * name and why, whichever check refused it (its shape, its name, its schemas, a name listed
 * twice, a task-only tool, the store refusing to write it). A list read into a real store.
 */
import { v7 as uuidv7 } from 'uuid';
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../app';
import { useTempDirs } from '../testing/temp-dir';
import { openCore } from './testing/harness';
import { syncTools, TASK_REQUIRED } from './tool-sync';

const tempDir = useTempDirs();
const cores: Core[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
});

const OBJ = { type: 'object', properties: {} };

describe('tools a server lists that are not brought in', () => {
  it('each is named with its reason, and the others are stored', async () => {
    const c = await openCore(await tempDir());
    cores.push(c);
    const bundleId = uuidv7();
    await c.registry.store.putBundle(bundleId, { slug: 'listed', displayName: 'Listed', description: '', isEnabled: true });
    const listed = [
      42,
      { name: '', inputSchema: OBJ },
      { name: 'kept', inputSchema: OBJ },
      { name: 'kept', inputSchema: OBJ, description: 'the second of the same name' },
      { name: 'no_schema' },
      { name: 'string_args', inputSchema: { type: 'string' } },
      { name: 'bad_output', inputSchema: OBJ, outputSchema: 5 },
      { name: 'bad_type', inputSchema: { type: 'object', properties: { x: { type: 'no-such-type' } } } },
      { name: 'task_only', inputSchema: OBJ, execution: { taskSupport: 'required' } },
    ];
    const report = await syncTools(c.registry.store, bundleId, listed);
    expect(report.added).toBe(1);
    expect(c.registry.store.toolsOf(bundleId).map((t) => t.slug)).toEqual(['kept']);
    for (const s of report.skipped) {
      expect(s.name.trim(), JSON.stringify(s)).not.toBe('');
      expect(s.reason.trim(), JSON.stringify(s)).not.toBe('');
    }
    const why = Object.fromEntries(report.skipped.map((s, i) => [`${i}:${s.name}`, s.reason]));
    expect(why).toEqual({
      '0:(unnamed)': 'not an object',
      '1:(unnamed)': 'its name must be a string of 1 to 256 characters',
      '2:kept': 'listed twice; the first is kept',
      '3:no_schema': 'inputSchema is missing or not an object',
      '4:string_args': expect.stringMatching(/^inputSchema must describe an object/),
      '5:bad_output': 'outputSchema is not an object',
      '6:bad_type': expect.stringMatching(/inputSchema is not a valid JSON Schema/),
      '7:task_only': TASK_REQUIRED,
    });
  });

  it('a tool the store refuses (its bundle is full) says so, with the store’s reason', async () => {
    const c = await openCore(await tempDir());
    cores.push(c);
    expect((await c.call('settings.set', { maxToolsPerBundle: 1 })).ok).toBe(true);
    const bundleId = uuidv7();
    await c.registry.store.putBundle(bundleId, { slug: 'full', displayName: 'Full', description: '', isEnabled: true });
    const report = await syncTools(c.registry.store, bundleId, [
      { name: 'first', inputSchema: OBJ },
      { name: 'second', inputSchema: OBJ },
    ]);
    expect(report.added).toBe(1);
    expect(report.skipped).toEqual([{ name: 'second', reason: expect.stringMatching(/^it could not be stored: .*holds 1 tool/) }]);
  });
});
