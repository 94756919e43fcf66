/**
 * Files attached to a message (chat.send `attachments`), through the whole core to the scripted
 * model server: an image reaches the request as an image part of the user message (or as a line
 * saying it is not shown, for a model that takes none), a text file as a fenced block; bad ones
 * are refused with a sentence naming the file, and nothing is stored.
 */
import { describe, expect, it } from 'vitest';
import { useAgentCore } from '../testing/agent-core';
import type { ScriptedModelServer } from '../testing/scripted-model-server';
import type { AttachmentInput } from '../../../shared/contract/chat';
import { ATTACHMENT_TEXT_MAX_BYTES } from '../../../shared/model/conversation';

const start = useAgentCore();

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const chatRequests = (server: Pick<ScriptedModelServer, 'requests'>) => server.requests.filter((r) => r.api === 'openai' || r.api === 'anthropic');

type Part = { type: string; text?: string; image_url?: { url: string } };

async function setUp(modelName: string) {
  const h = await start();
  const c = await h.call('conversations.create', {});
  await h.call('conversations.setModel', { id: c.id, model: { ...h.model, model: modelName } });
  const sendWith = async (text: string, attachments: AttachmentInput[]) => {
    const before = h.turns.filter((t) => t.state !== 'running').length;
    const added = await h.call('chat.send', { conversationId: c.id, text, attachments });
    const end = Date.now() + 15_000;
    while (h.turns.filter((t) => t.state !== 'running').length === before) {
      if (Date.now() > end) throw new Error('the turn did not end');
      await new Promise((r) => setTimeout(r, 10));
    }
    return added;
  };
  return { ...h, c, sendWith };
}

describe('attachments of a message', () => {
  it('an image reaches a model that takes images as an image part, a text file as a fenced block; the message keeps both', async () => {
    const { server, c, sendWith, messages, call } = await setUp('gpt-4o');
    server.script([{ kind: 'text', text: 'A pixel and some notes.' }]);
    const added = await sendWith('What are these?', [
      { name: 'pixel.png', mimeType: 'image/png', dataBase64: PNG },
      { name: 'notes.md', mimeType: 'text/markdown', dataBase64: b64('# Notes\n\nuse ```fences``` here\n') },
    ]);
    // The message names its files; their bytes are read one at a time (a thumbnail), never with the conversation.
    expect(added[0]!.attachments).toEqual([
      { name: 'pixel.png', mimeType: 'image/png', bytes: 70 },
      { name: 'notes.md', mimeType: 'text/markdown', bytes: 31 },
    ]);
    expect(await call('conversations.attachment', { id: c.id, messageId: added[0]!.id, index: 0 })).toEqual({ name: 'pixel.png', mimeType: 'image/png', bytes: 70, dataBase64: PNG });
    expect((await call('conversations.attachment', { id: c.id, messageId: added[0]!.id, index: 1 })).dataBase64).toBe(b64('# Notes\n\nuse ```fences``` here\n'));
    await expect(call('conversations.attachment', { id: c.id, messageId: added[0]!.id, index: 2 })).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('has no attachment 3') });
    const other = await call('conversations.create', {});
    await expect(call('conversations.attachment', { id: other.id, messageId: added[0]!.id, index: 0 })).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const user = chatRequests(server).at(-1)!.body.messages.find((m: { role: string }) => m.role === 'user');
    const parts = user.content as Part[];
    const text = parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
    expect(text).toContain('What are these?');
    expect(text).toContain('Attached file notes.md:\n````\n# Notes\n\nuse ```fences``` here\n````');
    expect(parts.filter((p) => p.type === 'image_url').map((p) => p.image_url!.url)).toEqual([`data:image/png;base64,${PNG}`]);

    // Kept: after reading the conversation again, and given again on the next turn.
    const stored = (await messages(c.id)).find((m) => m.role === 'user')!;
    expect(stored.attachments?.map((a) => a.name)).toEqual(['pixel.png', 'notes.md']);
    server.script([{ kind: 'text', text: 'again' }]);
    const asked = chatRequests(server).length;
    await call('chat.regenerate', { conversationId: c.id, messageId: stored.id });
    while (chatRequests(server).length === asked) await new Promise((r) => setTimeout(r, 10));
    const again = chatRequests(server).at(-1)!.body.messages.find((m: { role: string }) => m.role === 'user');
    expect((again.content as Part[]).some((p) => p.type === 'image_url')).toBe(true);
  });

  it('a model not known to take images gets a line saying the image is not shown, and the text file', async () => {
    const { server, sendWith } = await setUp('scripted-model');
    server.script([{ kind: 'text', text: 'ok' }]);
    await sendWith('Look', [
      { name: 'pixel.png', mimeType: 'image/png', dataBase64: PNG },
      { name: 'data.csv', mimeType: '', dataBase64: b64('a,b\n1,2') },
    ]);
    const user = chatRequests(server).at(-1)!.body.messages.find((m: { role: string }) => m.role === 'user');
    expect(typeof user.content).toBe('string');
    expect(user.content).toContain('[the attached image pixel.png is not shown to you: this model is not known to take images]');
    expect(user.content).toContain('Attached file data.csv:\n```\na,b\n1,2\n```');
    expect(user.content).not.toContain(PNG);
  });

  it('refuses bad attachments with a sentence naming the file, and stores nothing', async () => {
    const { server, c, call, messages } = await setUp('gpt-4o');
    const bad: [AttachmentInput, RegExp][] = [
      [{ name: 'fake.png', mimeType: 'image/png', dataBase64: b64('not a png at all, just text') }, /fake\.png is not a PNG image/],
      [{ name: 'pic.bmp', mimeType: 'image/bmp', dataBase64: b64('BM fake bitmap data') }, /pic\.bmp is of type image\/bmp: only PNG, JPEG, GIF and WebP/],
      [{ name: 'x.txt', mimeType: 'text/plain', dataBase64: 'not base64!' }, /x\.txt: its data is not base64/],
      [{ name: 'bin.dat', mimeType: 'application/octet-stream', dataBase64: Buffer.from([0xff, 0xfe, 0x00, 0x81]).toString('base64') }, /bin\.dat is not a UTF-8 text file/],
      [{ name: 'big.txt', mimeType: 'text/plain', dataBase64: b64('a'.repeat(ATTACHMENT_TEXT_MAX_BYTES + 1)) }, /big\.txt is 1\.00 MiB: a text file may be at most 1 MiB/],
      [{ name: 'empty.md', mimeType: 'text/markdown', dataBase64: '' }, /empty\.md is empty/],
    ];
    for (const [attachment, message] of bad) {
      await expect(call('chat.send', { conversationId: c.id, text: 'hi', attachments: [attachment] })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(message) });
    }
    const tooMany = Array.from({ length: 21 }, (_, i) => ({ name: `n${i}.txt`, mimeType: 'text/plain', dataBase64: b64('x') }));
    await expect(call('chat.send', { conversationId: c.id, text: 'hi', attachments: tooMany })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await messages(c.id)).toEqual([]);
    expect(chatRequests(server)).toEqual([]);
  });
});

describe('attachments kept through an edit, an export and an import', () => {
  it('an edited message keeps its files, and the model is given them with the new text', async () => {
    const { server, c, sendWith, call } = await setUp('gpt-4o');
    server.script([{ kind: 'text', text: 'first' }]);
    const [user] = await sendWith('What is this?', [{ name: 'pixel.png', mimeType: 'image/png', dataBase64: PNG }]);
    server.script([{ kind: 'text', text: 'second' }]);
    const asked = chatRequests(server).length;
    const shown = await call('chat.edit', { conversationId: c.id, messageId: user!.id, text: 'And now?' });
    while (chatRequests(server).length === asked) await new Promise((r) => setTimeout(r, 10));
    const edited = shown.find((m) => m.role === 'user')!;
    expect(edited.id).not.toBe(user!.id);
    expect(edited.attachments).toEqual([{ name: 'pixel.png', mimeType: 'image/png', bytes: 70 }]);
    const parts = chatRequests(server).at(-1)!.body.messages.find((m: { role: string }) => m.role === 'user').content as Part[];
    expect(parts.find((p) => p.type === 'text')!.text).toContain('And now?');
    expect(parts.filter((p) => p.type === 'image_url')).toHaveLength(1);
  });

  it('a JSON export carries the files and the conversation\'s options; its import gives them back', async () => {
    const { server, c, sendWith, call, messages } = await setUp('gpt-4o');
    await call('conversations.setOptions', { id: c.id, systemPrompt: 'Answer in French.', params: { temperature: 0.3 } });
    server.script([{ kind: 'text', text: 'ok' }]);
    await sendWith('Look', [
      { name: 'pixel.png', mimeType: 'image/png', dataBase64: PNG },
      { name: 'notes.txt', mimeType: 'text/plain', dataBase64: b64('hello') },
    ]);
    const { text } = await call('conversations.export', { id: c.id, format: 'json' });
    const file = JSON.parse(text);
    expect(file.conversation).toMatchObject({ systemPrompt: 'Answer in French.', params: { temperature: 0.3 } });
    expect(file.messages[0].attachments.map((a: { dataBase64?: string }) => a.dataBase64)).toEqual([PNG, b64('hello')]);

    const imported = await call('conversations.import', { text });
    expect(imported.attachmentsLeftOut).toBeUndefined();
    expect(imported.conversation).toMatchObject({ systemPrompt: 'Answer in French.', params: { temperature: 0.3 } });
    const copy = (await messages(imported.conversation.id)).find((m) => m.role === 'user')!;
    expect(copy.attachments).toEqual([
      { name: 'pixel.png', mimeType: 'image/png', bytes: 70 },
      { name: 'notes.txt', mimeType: 'text/plain', bytes: 5 },
    ]);
    expect((await call('conversations.attachment', { id: imported.conversation.id, messageId: copy.id, index: 0 })).dataBase64).toBe(PNG);

    // A file named without its bytes (an older export) comes back without it, and says so.
    const old = { ...file, messages: file.messages.map((m: { attachments?: object[] }) => (m.attachments ? { ...m, attachments: m.attachments.map((a) => ({ ...a, dataBase64: undefined })) } : m)) };
    const fromOld = await call('conversations.import', { text: JSON.stringify(old) });
    expect(fromOld.attachmentsLeftOut).toBe(2);
    expect((await messages(fromOld.conversation.id)).find((m) => m.role === 'user')!.attachments).toBeUndefined();

    // A file whose bytes are not what its type says is refused, naming its place; nothing is created.
    const before = (await call('conversations.list', {})).length;
    const forged = { ...file, messages: file.messages.map((m: { attachments?: object[] }) => (m.attachments ? { ...m, attachments: [{ name: 'x.png', mimeType: 'image/png', bytes: 4, dataBase64: b64('nope') }] } : m)) };
    await expect(call('conversations.import', { text: JSON.stringify(forged) })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/messages\[0\]\.attachments: x\.png is not a PNG image/) });
    expect((await call('conversations.list', {})).length).toBe(before);
  });
});

describe('attachment names and types', () => {
  it('keeps a name to one line without a path, and a text file to a text type', async () => {
    const { checkAttachments } = await import('./attachments');
    const [file] = checkAttachments([{ name: '../../etc/pass\nwd.txt\u0007', mimeType: 'text/html; charset=x', dataBase64: Buffer.from('hi').toString('base64') }]);
    expect(file).toMatchObject({ name: '.._.._etc_passwd.txt', mimeType: 'text/plain' });
  });
});
