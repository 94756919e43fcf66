import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../../shared/model/app-info';
import type { AgentProfile } from '../../../shared/model/agent-profile';
import { useTempDirs } from '../testing/temp-dir';
import { AgentProfileStore, builtInReadOnly, loadBuiltIns } from './profile-store';

const tempDir = useTempDirs();
const SHIPPED = path.resolve(__dirname, '../../../resources');

const profile = (over: Partial<AgentProfile> = {}): AgentProfile => ({
  name: 'summariser',
  description: 'Summarises documents.',
  systemPrompt: 'Summarise.',
  delegatesTo: [],
  canAskMaster: false,
  maxSteps: 5,
  ...over,
});

async function open(resourcesDir = SHIPPED) {
  const dataDir = await tempDir();
  const problems: Omit<Problem, 'id' | 'at'>[] = [];
  let changes = 0;
  const store = await AgentProfileStore.open({ dataDir, resourcesDir, report: (p) => problems.push(p), onChange: () => changes++ });
  return { dataDir, store, problems, changes: () => changes };
}

describe('agent profiles', () => {
  it('ships valid built-ins: analyst, researcher, writer; every delegate exists', async () => {
    const shipped = await loadBuiltIns(path.join(SHIPPED, 'agents'));
    expect(shipped.map((p) => p.name)).toEqual(['analyst', 'researcher', 'writer']);
    const { store } = await open();
    for (const v of store.list()) {
      expect(v.builtIn).toBe(true);
      expect(v.enabled).toBe(true);
      expect(v.warnings).toEqual([]);
    }
  });

  it('an invalid built-in is an error at load (the app ships it)', async () => {
    const res = await tempDir();
    await fs.mkdir(path.join(res, 'agents'));
    await fs.writeFile(path.join(res, 'agents', 'bad.json'), JSON.stringify(profile({ name: 'bad', maxSteps: 0 })));
    await expect(loadBuiltIns(path.join(res, 'agents'))).rejects.toThrow(/bad\.json is invalid: maxSteps: /);
  });

  it('saves a user profile as a file, keeps it after a reopen, deletes it', async () => {
    const { dataDir, store, changes } = await open();
    const v = await store.put(profile({ delegatesTo: ['writer'] }));
    expect(v).toEqual({ profile: profile({ delegatesTo: ['writer'] }), builtIn: false, enabled: true, warnings: [] });
    const file = path.join(dataDir, 'agents', 'summariser.json');
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual(profile({ delegatesTo: ['writer'] }));
    expect(changes()).toBe(1);
    const again = await AgentProfileStore.open({ dataDir, resourcesDir: SHIPPED });
    expect(again.get('summariser').profile.delegatesTo).toEqual(['writer']);
    await again.delete('summariser');
    await expect(fs.stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(() => again.get('summariser')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('refuses an invalid profile with every field that is wrong, writing nothing', async () => {
    const { dataDir, store } = await open();
    const bad = { ...profile(), name: 'Bad Name', description: ' ', maxSteps: 1000, extra: 1 };
    const err = await store.put(bad).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED' });
    const message = (err as Error).message;
    expect(message).toContain('name: a name starts with a letter');
    expect(message).toContain('description: a description is required');
    expect(message).toContain('maxSteps: ');
    expect(message).toMatch(/extra/);
    await expect(fs.readdir(path.join(dataDir, 'agents'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(store.put(profile({ delegatesTo: ['summariser'] }))).rejects.toThrow("delegatesTo: 'summariser' cannot delegate to itself");
  });

  it('built-ins are read-only but can be disabled, and that is kept', async () => {
    const { dataDir, store } = await open();
    await expect(store.put(profile({ name: 'writer' }))).rejects.toThrow(builtInReadOnly('writer'));
    await expect(store.delete('writer')).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await store.setEnabled('writer', false)).enabled).toBe(false);
    expect(store.enabled('writer')).toBeUndefined();
    // The analyst delegates to the writer: it says so.
    expect(store.get('analyst').warnings).toEqual(["delegates to 'writer', which is disabled"]);
    const again = await AgentProfileStore.open({ dataDir, resourcesDir: SHIPPED });
    expect(again.get('writer').enabled).toBe(false);
    await again.setEnabled('writer', true);
    expect(again.enabled('writer')?.name).toBe('writer');
  });

  it('a delegate that does not exist is a warning, not a refusal (profiles are made one at a time)', async () => {
    const { store } = await open();
    expect((await store.put(profile({ delegatesTo: ['charts'] }))).warnings).toEqual(["delegates to 'charts', which does not exist"]);
  });

  it('a damaged file in the folder is reported and moved aside; the others load', async () => {
    const dataDir = await tempDir();
    const dir = path.join(dataDir, 'agents');
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'good.json'), JSON.stringify(profile({ name: 'good' })));
    await fs.writeFile(path.join(dir, 'broken.json'), '{"name": "broken",');
    await fs.writeFile(path.join(dir, 'wrong.json'), JSON.stringify(profile({ name: 'other' })));
    await fs.writeFile(path.join(dir, 'invalid.json'), JSON.stringify({ ...profile({ name: 'invalid' }), maxSteps: -1 }));
    await fs.writeFile(path.join(dir, 'writer.json'), JSON.stringify(profile({ name: 'writer' })));
    const problems: Omit<Problem, 'id' | 'at'>[] = [];
    const store = await AgentProfileStore.open({ dataDir, resourcesDir: SHIPPED, report: (p) => problems.push(p) });
    expect(store.list().map((v) => v.profile.name)).toEqual(['analyst', 'good', 'researcher', 'writer']);
    expect(store.get('writer').builtIn).toBe(true);
    expect(problems.map((p) => [path.basename(p.path), p.kind])).toEqual([
      ['broken.json', 'corrupt-file'],
      ['invalid.json', 'corrupt-file'],
      ['wrong.json', 'corrupt-file'],
      ['writer.json', 'invalid-config'],
    ]);
    expect(problems[1]!.message).toMatch(/^not a valid agent profile: maxSteps: /);
    expect(problems[2]!.message).toBe("the file is named 'wrong.json' but the profile inside is named 'other'");
    // Set aside, never deleted.
    const left = (await fs.readdir(dir)).sort();
    expect(left.filter((n) => n.includes('.corrupt-'))).toHaveLength(3);
    expect(left).toContain('good.json');
  });
});
