/** The windows hear of each batch the invocation log writes ('invocations.logged'), so they read its history when it has changed. */
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../../shared/contract';
import { createCore, type Core } from '../app';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';

const tempDir = useTempDirs();
const cores: Core[] = [];
afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
});

const MATH = '01941f29-7c0f-7ad2-912a-3744428a5066';
const calc = { bundleId: MATH, slug: 'calc', version: '1' };

describe("the invoke module's 'invocations.logged'", () => {
  it('is sent once a batch, after its records are in the log, naming each tool called once', async () => {
    const core = await createCore({ dataDir: await tempDir(), resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
    cores.push(core);
    const tool = await core.call('tools.get', calc);
    if (!tool.ok) throw new Error(tool.error.message);
    const logged: { payload: EventPayload<'invocations.logged'>; listed: number }[] = [];
    const listed = () => core.call('invocations.list', { toolId: tool.value.id }).then((r) => (r.ok ? r.value.length : -1));
    // What a window does on the event: read the tool's history at once.
    core.events.on('invocations.logged', (payload) => void listed().then((n) => logged.push({ payload, listed: n })));

    const calls = await Promise.all([1, 2, 3].map((n) => core.call('tools.invoke', { ...calc, args: { expression: `${n} + 1` }, source: 'user' })));
    expect(calls.every((r) => r.ok)).toBe(true);
    while (logged.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(logged).toEqual([{ payload: { toolIds: [tool.value.id] }, listed: 3 }]);
  });
});
