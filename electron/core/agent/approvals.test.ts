import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../../shared/model/app-info';
import { useTempDirs } from '../testing/temp-dir';
import { ApprovalStore } from './approvals';

const tempDir = useTempDirs();
const now = () => new Date('2026-05-01T10:00:00Z');

describe('ApprovalStore', () => {
  it('remembers rules always and per conversation, across a reopen, and revokes them', async () => {
    const dir = await tempDir();
    let changes = 0;
    const store = await ApprovalStore.open({ dataDir: dir, now, onChange: () => changes++ });
    expect(store.allows('t1', 'c1')).toBe(false);
    await store.add({ toolId: 't1', toolName: 'b/one', scope: 'conversation', conversationId: 'c1' });
    await store.add({ toolId: 't2', toolName: 'b/two', scope: 'always' });
    await store.add({ toolId: 't2', toolName: 'b/two', scope: 'always' });
    expect(store.list()).toHaveLength(2);
    expect(changes).toBe(2);
    expect(store.allows('t1', 'c1')).toBe(true);
    expect(store.allows('t1', 'c2')).toBe(false);
    expect(store.allows('t2', 'anything')).toBe(true);

    const again = await ApprovalStore.open({ dataDir: dir, now });
    expect(again.list()).toEqual([
      { toolId: 't1', toolName: 'b/one', scope: 'conversation', conversationId: 'c1', createdAt: '2026-05-01T10:00:00.000Z' },
      { toolId: 't2', toolName: 'b/two', scope: 'always', createdAt: '2026-05-01T10:00:00.000Z' },
    ]);
    expect(await again.revoke('t1', 'conversation', 'c2')).toBe(false);
    expect(await again.revoke('t1', 'conversation', 'c1')).toBe(true);
    expect(await again.revoke('t2', 'always')).toBe(true);
    expect(again.allows('t2', 'x')).toBe(false);
    expect(JSON.parse(await fs.readFile(path.join(dir, 'approvals.json'), 'utf8'))).toEqual({ version: 1, rules: [] });
  });

  it('moves a corrupt file aside, reports it, and starts with no rules', async () => {
    for (const body of ['{not json', JSON.stringify({ version: 1, rules: [{ toolId: 5 }] })]) {
      const dir = await tempDir();
      await fs.writeFile(path.join(dir, 'approvals.json'), body);
      const problems: Omit<Problem, 'id' | 'at'>[] = [];
      const store = await ApprovalStore.open({ dataDir: dir, now, problems: (p) => problems.push(p) });
      expect(store.list()).toEqual([]);
      expect(problems).toEqual([expect.objectContaining({ kind: 'corrupt-file', movedTo: expect.stringContaining('approvals.json.corrupt-') })]);
      expect(await fs.readFile(problems[0]!.movedTo!, 'utf8')).toBe(body);
      await store.add({ toolId: 't', toolName: 'b/t', scope: 'always' });
      expect((await ApprovalStore.open({ dataDir: dir, now })).allows('t', 'c')).toBe(true);
    }
  });
});

describe('ApprovalStore writes only a real change', () => {
  it('forgetting a conversation without rules, or revoking a rule it does not have, leaves the file as another process wrote it', async () => {
    const dir = await tempDir();
    let changes = 0;
    // This copy opens first and never reloads (as the CLI's core, which does not watch the file).
    const stale = await ApprovalStore.open({ dataDir: dir, now, onChange: () => changes++ });
    const app = await ApprovalStore.open({ dataDir: dir, now });
    await app.add({ toolId: 't1', toolName: 'b/one', scope: 'always' });
    const file = path.join(dir, 'approvals.json');
    const written = await fs.readFile(file, 'utf8');

    expect(await stale.forgetConversation('an-eval-attempt')).toBe(false);
    expect(await stale.revoke('t9', 'always')).toBe(false);
    expect(await fs.readFile(file, 'utf8')).toBe(written);
    expect(changes).toBe(0);
    expect((await ApprovalStore.open({ dataDir: dir, now })).allows('t1', 'any')).toBe(true);
  });
});
