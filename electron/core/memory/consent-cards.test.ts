/**
 * The app's consent cards with the memory service on a real file: the question goes on the
 * call's card (status awaiting-approval, the diff), the call waits for memory.consent's
 * answer, and each answer is a row of the card: allow once (asks again next time), allow for
 * this conversation (remembered for that conversation, block and operation only), deny,
 * timeout (deny), and the app closing (deny).
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import type { ToolCard } from '../../../shared/model/conversation';
import { useTempDirs } from '../testing/temp-dir';
import { ChatConsent } from './consent-cards';
import type { Actor, MemoryService } from './memory-service';
import { openTestMemory, userActor } from './testing/memory-kit';

interface Row {
  conversationId: string;
  card: ToolCard;
  text: string;
  turnId?: string | undefined;
}

/** A timeline of rows; the call's first card is there before it runs, as the agent loop writes it. */
function timeline() {
  const rows: Row[] = [];
  const consent = new ChatConsent({
    cardOf: (cid, inv) => {
      const r = rows.filter((x) => x.conversationId === cid && x.card.invocationId === inv).at(-1);
      return r ? { card: r.card, turnId: r.turnId } : undefined;
    },
    append: (cid, row) => void rows.push({ conversationId: cid, ...row }),
  });
  const call = (conversationId: string, invocationId: string, args: unknown) =>
    rows.push({
      conversationId,
      turnId: 'turn-1',
      text: '',
      card: { invocationId, bundleId: 'b', slug: 'block-edit', version: '1', displayName: 'Block edit', args, status: 'running', source: 'model', callId: 'call_1' },
    });
  return { rows, consent, call };
}

/** Waits until the consent has a question open (the service asks after its checks). */
async function question(consent: ChatConsent, n = 1): Promise<string> {
  for (let i = 0; i < 200 && consent.pending().length < n; i++) await new Promise((r) => setTimeout(r, 1));
  const p = consent.pending();
  expect(p.length).toBeGreaterThanOrEqual(n);
  return p.at(-1)!.id;
}

const signal = () => new AbortController().signal;
const edit = (m: MemoryService, actor: Actor, content: string, invocationId = 'inv-1') =>
  m.blockEdit({ ...actor, invocationId }, { op: 'append', label: 'persona', content }, signal());

async function failure(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('consent cards in the chat', () => {
  const tempDir = useTempDirs();

  async function setup(consentTimeoutMs?: number) {
    const t = timeline();
    const m = openTestMemory(await tempDir(), { consent: t.consent, ...(consentTimeoutMs !== undefined ? { consentTimeoutMs } : {}) });
    const actor = userActor('c1');
    m.blocks.create({ owner: actor.owner, label: 'persona', permission: 'Human', content: 'likes tea' }, 'user');
    m.blocks.create({ owner: actor.owner, label: 'goals', permission: 'Partner', content: '' }, 'user');
    return { ...t, m, actor };
  }

  it('allow once: the card shows the diff, the call waits, the edit applies, and the next edit asks again', async () => {
    const { rows, consent, call, m, actor } = await setup();
    call('c1', 'inv-1', { op: 'append', label: 'persona', content: 'and cake' });
    const done = edit(m, actor, 'and cake');
    const id = await question(consent);
    const asked = rows.at(-1)!;
    expect(asked).toMatchObject({ conversationId: 'c1', turnId: 'turn-1', text: "consent asked: block_edit append on block 'persona' (Human)" });
    expect(asked.card).toMatchObject({ invocationId: 'inv-1', status: 'awaiting-approval', callId: 'call_1', source: 'model', args: { op: 'append', label: 'persona', content: 'and cake' } });
    expect(asked.card.consent).toMatchObject({ id, operation: 'block_edit.append', label: 'persona', permission: 'Human', before: 'likes tea', after: 'likes tea\nand cake' });
    expect(asked.card.consent!.diff).toMatch(/^-likes tea$/m);
    expect(asked.card.consent!.diff).toMatch(/^\+and cake$/m);
    expect(asked.card.consent!.answer).toBeUndefined();
    // Nothing changed while it waits.
    expect(m.blocks.view(actor.owner, 'persona').text).toBe('likes tea');

    expect(consent.respond(id, 'allow-once')).toBe(true);
    await done;
    expect(m.blocks.view(actor.owner, 'persona').text).toBe('likes tea\nand cake');
    expect(rows.at(-1)!.card).toMatchObject({ status: 'running', consent: { id, answer: 'allow-once' } });
    expect(rows.at(-1)!.text).toBe("consent allow-once: block_edit append on block 'persona'");
    // An answer counts once.
    expect(consent.respond(id, 'deny')).toBe(false);

    call('c1', 'inv-2', {});
    const again = edit(m, actor, 'and scones', 'inv-2');
    const second = await question(consent);
    expect(second).not.toBe(id);
    consent.respond(second, 'allow-once');
    await again;
    m.close();
  });

  it('allow for this conversation: remembered for that conversation, block and operation, not beyond', async () => {
    const { rows, consent, m, actor } = await setup();
    const first = edit(m, actor, 'one');
    consent.respond(await question(consent), 'allow-conversation');
    await first;
    const asked = rows.length;
    // Same conversation, block and operation: no question.
    await edit(m, actor, 'two', 'inv-2');
    expect(rows).toHaveLength(asked);
    expect(m.blocks.view(actor.owner, 'persona').text).toBe('likes tea\none\ntwo');

    // Another operation on the block asks.
    const replace = m.blockEdit({ ...actor, invocationId: 'inv-3' }, { op: 'replace', label: 'persona', old: 'two', new: '2' }, signal());
    consent.respond(await question(consent), 'deny');
    expect((await failure(replace)).message).toContain('the user denied block_edit replace');
    // Another block asks.
    const goals = m.blockEdit({ ...actor, invocationId: 'inv-4' }, { op: 'append', label: 'goals', content: 'x' }, signal());
    consent.respond(await question(consent), 'deny');
    await failure(goals);
    // Another conversation asks (its own memory, the same label).
    const other = userActor('c2');
    m.blocks.create({ owner: other.owner, label: 'persona', permission: 'Human', content: '' }, 'user');
    const elsewhere = edit(m, other, 'three', 'inv-5');
    const id = await question(consent);
    expect(rows.at(-1)).toMatchObject({ conversationId: 'c2' });
    consent.respond(id, 'deny');
    await failure(elsewhere);
    m.close();
  });

  it('deny: the call fails with the refusal, nothing changes, the answer is on the timeline', async () => {
    const { rows, consent, m, actor } = await setup();
    const done = edit(m, actor, 'and cake');
    const id = await question(consent);
    consent.respond(id, 'deny');
    const e = await failure(done);
    expect(e.code).toBe('FORBIDDEN');
    expect(e.message).toBe("refused by human consent: the user denied block_edit append on block 'persona'; nothing was changed");
    expect(m.blocks.view(actor.owner, 'persona').text).toBe('likes tea');
    expect(rows.at(-1)!.card.consent).toMatchObject({ id, answer: 'deny' });
    // A call with no card yet (the + palette) gets one made for it.
    expect(rows.at(-1)!.card).toMatchObject({ invocationId: 'inv-1', slug: 'block-edit', source: 'user' });
    m.close();
  });

  it('no answer in time is deny, recorded as timeout', async () => {
    const { rows, consent, m, actor } = await setup(30);
    const e = await failure(edit(m, actor, 'and cake'));
    expect(e.message).toContain("refused by human consent: no answer to block_edit append on block 'persona' within 30 ms, which counts as deny");
    expect(rows.at(-1)!.card).toMatchObject({ status: 'running', consent: { answer: 'timeout' } });
    expect(consent.pending()).toEqual([]);
    expect(m.blocks.view(actor.owner, 'persona').text).toBe('likes tea');
    m.close();
  });

  it('the app closing answers deny (closed), and later questions at once', async () => {
    const { rows, consent, m, actor } = await setup();
    const pin = m.block({ ...actor, invocationId: 'inv-1' }, { op: 'pin', label: 'goals' }, signal());
    await question(consent);
    expect(rows.at(-1)!.card.consent).toMatchObject({ operation: 'block.pin', summary: "pin block 'goals'", permission: 'Partner' });
    expect(rows.at(-1)!.card.consent!.diff).toBeUndefined();
    consent.close();
    const e = await failure(pin);
    expect(e.message).toBe("refused by human consent: the app closed before the user answered block pin on block 'goals', which counts as deny; nothing was changed");
    expect(rows.at(-1)!.card.consent).toMatchObject({ answer: 'closed' });
    expect(m.blocks.infoOf(actor.owner, 'goals').pinned).toBe(false);
    const count = rows.length;
    await failure(edit(m, actor, 'x'));
    expect(rows).toHaveLength(count);
    m.close();
  });

  it('a stopped call stops waiting and leaves the answer to the agent loop', async () => {
    const { rows, consent, m, actor } = await setup();
    const ctl = new AbortController();
    const done = m.blockEdit({ ...actor, invocationId: 'inv-1' }, { op: 'append', label: 'persona', content: 'x' }, ctl.signal);
    const id = await question(consent);
    const count = rows.length;
    ctl.abort(new AppError('CANCELLED', 'stopped by the user'));
    expect((await failure(done)).code).toBe('CANCELLED');
    expect(rows).toHaveLength(count);
    expect(consent.respond(id, 'allow-once')).toBe(false);
    m.close();
  });
});
