/**
 * Every operation × every permission level, through the real service on a real SQLite
 * file: allowed (it happens), needs the human (consent-required without an asker, done
 * after an allow), refused (nothing changes, the layer is named).
 */
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../shared/errors';
import { MEMORY_PERMISSIONS, type MemoryPermission, type NewBlock } from '../../../shared/model/memory';
import { useTempDirs } from '../testing/temp-dir';
import type { BlockEditInput } from './edits';
import type { Actor, BlockInput, MemoryService } from './memory-service';
import { FakeConsent, never, openTestMemory, userActor } from './testing/memory-kit';

type Outcome = 'allowed' | 'human' | 'refused';
const A = 'allowed' as const;
const H = 'human' as const;
const R = 'refused' as const;

interface Case {
  op: string;
  schema: NewBlock['schema'];
  content: unknown;
  run: (m: MemoryService, actor: Actor, label: string) => Promise<unknown>;
  /** ReadOnly, Partner, Human, Append, ReadWrite, Admin. */
  expected: [Outcome, Outcome, Outcome, Outcome, Outcome, Outcome];
}

const block = (op: BlockInput['op']) => (m: MemoryService, a: Actor, label: string) => m.block(a, { op, label }, never);
const edit = (input: Omit<BlockEditInput, 'label'>) => (m: MemoryService, a: Actor, label: string) => m.blockEdit(a, { ...input, label } as BlockEditInput, never);
const TEXT = { kind: 'Text' } as const;

const CASES: Case[] = [
  { op: 'block load', schema: TEXT, content: 'hello', run: block('load'), expected: [A, A, A, A, A, A] },
  { op: 'block info', schema: TEXT, content: 'hello', run: block('info'), expected: [A, A, A, A, A, A] },
  { op: 'block pin', schema: TEXT, content: 'hello', run: block('pin'), expected: [R, H, H, A, A, A] },
  { op: 'block unpin', schema: TEXT, content: 'hello', run: block('unpin'), expected: [R, H, H, A, A, A] },
  { op: 'block archive', schema: TEXT, content: 'hello', run: block('archive'), expected: [R, H, H, R, R, A] },
  { op: 'block_edit append (Text)', schema: TEXT, content: 'hello', run: edit({ op: 'append', content: 'more' }), expected: [R, H, H, A, A, A] },
  { op: 'block_edit append (List)', schema: { kind: 'List' }, content: ['a'], run: edit({ op: 'append', content: 'b' }), expected: [R, H, H, A, A, A] },
  { op: 'block_edit replace', schema: TEXT, content: 'hello', run: edit({ op: 'replace', old: 'hello', new: 'bye' }), expected: [R, H, H, R, A, A] },
  { op: 'block_edit patch', schema: TEXT, content: 'hello\n', run: edit({ op: 'patch', patch: '@@ -1 +1 @@\n-hello\n+bye\n' }), expected: [R, H, H, R, A, A] },
  { op: 'block_edit set_field', schema: { kind: 'Map' }, content: { a: 1 }, run: edit({ op: 'set_field', field: 'a', value: 2 }), expected: [R, H, H, R, A, A] },
];

describe('every operation × every permission level', () => {
  const tempDir = useTempDirs();

  for (const c of CASES) {
    it.each(MEMORY_PERMISSIONS.map((p, i) => [p, c.expected[i]!] as const))(`${c.op} on a %s block: %s`, async (permission: MemoryPermission, outcome: Outcome) => {
      const dir = await tempDir();
      const consent = new FakeConsent(['allow-once']);
      const m = openTestMemory(dir);
      const actor = userActor();
      m.blocks.create({ owner: actor.owner, label: 'b', schema: c.schema, permission, content: c.content }, 'user');
      const before = JSON.stringify(m.blocks.view(actor.owner, 'b'));
      const err = await c.run(m, actor, 'b').then(
        () => undefined,
        (e: unknown) => e,
      );
      if (outcome === 'allowed') {
        expect(err).toBeUndefined();
      } else {
        expect(isAppError(err) && err.code).toBe('FORBIDDEN');
        const e = err as { message: string; details: { layer: string; outcome?: string } };
        if (outcome === 'refused') {
          expect(e.details.layer).toBe('block permission');
          expect(e.message).toContain(`refused by block permission: block 'b' has permission ${permission}`);
        } else {
          expect(e.details).toMatchObject({ layer: 'human consent', outcome: 'consent-required' });
          expect(e.message).toMatch(/^consent required: block 'b' has permission (Partner|Human)/);
        }
        // A refused or waiting call changed nothing.
        expect(JSON.stringify(m.blocks.view(actor.owner, 'b'))).toBe(before);
      }
      m.close();
      if (outcome === 'human') {
        // The same call with someone to ask: allowed once, it happens.
        const m2 = openTestMemory(dir, { consent });
        await expect(c.run(m2, actor, 'b')).resolves.toBeDefined();
        expect(consent.asked).toHaveLength(1);
        expect(consent.asked[0]).toMatchObject({ label: 'b', permission, conversationId: 'c1' });
        m2.close();
      }
    });
  }

  it('recall insert and search concern no block: any conversation may use them', async () => {
    const m = openTestMemory(await tempDir());
    await m.recallOp(userActor(), { op: 'insert', content: 'the deploy key rotates on Fridays' });
    const r = await m.recallOp(userActor(), { op: 'search', query: 'deploy' });
    expect(r.results).toHaveLength(1);
    m.close();
  });
});
