/**
 * The memory module's place in the core's lifecycle (electron/core/modules.ts): what it
 * registers before the registry opens, and what it answers before other modules stop.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createCore } from '../app';
import { Registry } from '../registry/registry';
import { useAgentCore } from '../testing/agent-core';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import type { ScriptedReply } from '../testing/scripted-model-server';

const tempDir = useTempDirs();
const start = useAgentCore();
const call = (name: string, args: unknown): ScriptedReply => ({ kind: 'tools', calls: [{ name, arguments: args }] });

async function scenario(viaWorkflow: boolean) {
  const { server, core, call: op, model, messages } = await start();
  const owner = (cid: string) => `conversation:${cid}`;
  const c = await op('conversations.create', {});
  await op('conversations.setModel', { id: c.id, model });
  await op('memory.blocks.create', { owner: owner(c.id), label: 'persona', content: 'Ada', permission: 'Human' });
  server.script([() => call('block_edit', { op: 'append', label: 'persona', content: 'likes tea' }), () => ({ kind: 'text', text: 'ok' }), () => ({ kind: 'text', text: 'ok' })]);
  if (viaWorkflow) {
    await fs.mkdir(path.join(core.workspaceDir(), 'workflows'));
    await fs.writeFile(path.join(core.workspaceDir(), 'workflows', 'w.md'), ['# W', '## Edit', 'Append to persona.'].join('\n'));
    await op('workflows.run', { path: 'workflows/w.md', conversationId: c.id });
  } else {
    await op('chat.send', { conversationId: c.id, text: 'Append.' });
  }
  for (let i = 0; ; i++) {
    const card = (await messages(c.id)).at(-1)?.tool;
    if (card?.status === 'awaiting-approval' && card.consent) break;
    if (i > 1500) throw new Error('no consent card');
    await new Promise((r) => setTimeout(r, 10));
  }
  await core.close();
  const again = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, recoverInterrupted: false, dataDir: core.dataDir, host: 'headless' });
  const r = await again.call('conversations.get', { id: c.id });
  await again.close();
  if (!r.ok) throw new Error(r.error.message);
  return r.value.messages.map((m) => `${m.role}: ${m.text}${m.tool ? ` [${m.tool.status}${m.tool.consent?.answer ? ' ' + m.tool.consent.answer : ''}]` : ''}`);
}

describe('closing the core with a consent question open', () => {
  it('answers it closed before a chat turn stops', async () => {
    const rows = await scenario(false);
    expect(rows.some((r) => r.includes('consent closed'))).toBe(true);
  });
  it('answers it closed before a workflow step\'s turn stops', async () => {
    const rows = await scenario(true);
    expect(rows.some((r) => r.includes('consent closed'))).toBe(true);
  });
});

describe('the file tool of a FileSource, at start', () => {
  it('is in the shared search index as soon as the registry has opened, not only once memory starts', async () => {
    const dataDir = await tempDir();
    const folder = await tempDir();
    await fs.writeFile(path.join(folder, 'a.md'), 'hello');
    const a = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
    const r = await a.call('memory.sources.save', { kind: 'files', id: 'notes', folder, rules: [{ pattern: '**', permission: 'ReadWrite' }] });
    expect(r.ok).toBe(true);
    await a.close();
    const seen: string[][] = [];
    const orig = Registry.prototype.open;
    const spy = vi.spyOn(Registry.prototype, 'open').mockImplementation(async function (this: Registry) {
      await orig.call(this);
      seen.push(this.search({ q: 'file' }).items.map((h) => h.tool.slug));
    });
    // Restored whatever happens: files share their worker's modules (vitest.config.ts), a spy left would reach later files.
    let b;
    try {
      b = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
    } finally {
      spy.mockRestore();
    }
    const after = b.registry.search({ q: 'file' }).items.map((h) => h.tool.slug);
    await b.close();
    expect(seen[0]).toContain('file');
    expect(after).toContain('file');
  });
});
