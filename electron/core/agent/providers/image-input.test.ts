/**
 * A tool's image as each provider is given it: from the card the timeline keeps, through
 * renderForModel, to the messages each client sends (and, over real HTTP, the request body).
 */
import { describe, expect, it } from 'vitest';
import type { ToolCard } from '../../../../shared/model/conversation';
import { startScriptedModelServer } from '../../testing/scripted-model-server';
import type { TimelineRow } from '../../timeline/conversation-store';
import { renderForModel } from '../../timeline/render';
import type { ModelImage, ModelMessage } from '../types';
import { AnthropicModelClient, toAnthropicMessages } from './anthropic-client';
import { imageSizeOf, MODEL_IMAGES_PER_REQUEST, MODEL_IMAGE_MAX_BASE64_CHARS, acceptsImages, planImages } from './image-input';
import { OpenAIModelClient, toOpenAIMessages } from './openai-client';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** The `picture` tool's value as electron/core/mcp-client/results.ts makes it. */
const pictureValue = {
  content: [
    { type: 'text', text: 'a pixel' },
    { type: 'image', mimeType: 'image/png', bytes: 70, dataUrl: `data:image/png;base64,${PNG}` },
    { type: 'resource_link', uri: 'file:///tmp/pixel.png', name: 'pixel.png', mimeType: 'image/png' },
  ],
};

const row = (r: Partial<TimelineRow> & Pick<TimelineRow, 'role'>): TimelineRow => ({ id: Math.random().toString(), conversationId: 'c', createdAt: 'x', text: '', ...r });
const card = (c: Partial<ToolCard>): ToolCard => ({ invocationId: 'i', bundleId: 'b', slug: 'picture', version: '1', displayName: 'Picture', args: {}, status: 'ok', source: 'model', ...c });

/** A model called `picture`, which answered with text, an image and a link. */
function rendered(): ModelMessage[] {
  return renderForModel({
    rows: [
      row({ role: 'user', text: 'show me' }),
      row({ role: 'assistant', toolCalls: [{ callId: 'c1', name: 'picture', argsText: '{}' }] }),
      row({ role: 'tool', tool: card({ callId: 'c1', value: pictureValue }) }),
    ],
    system: '',
    redact: (t) => t,
  });
}

const TOOL_TEXT = 'a pixel\n\n[image 1: image/png, 70 bytes]\n\n[link file:///tmp/pixel.png “pixel.png” (image/png)]';

describe('a tool’s image, rendered for a model', () => {
  it('is text that says what it is, with the image beside it: no base64 in the text', () => {
    const tool = rendered().at(-1)!;
    expect(tool).toEqual({ role: 'tool', callId: 'c1', name: 'picture', text: TOOL_TEXT, images: [{ label: 'image 1', mimeType: 'image/png', bytes: 70, base64: PNG }] });
  });

  it('from a tool the user ran: the note’s images ride on the user message', () => {
    const out = renderForModel({ rows: [row({ role: 'tool', tool: card({ source: 'user', value: pictureValue }) })], system: '', redact: (t) => t });
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ role: 'user', images: [{ label: 'image 1', base64: PNG }] });
    expect(out[0]!.text).toContain('[the user ran the tool picture with {}]\na pixel\n\n[image 1: image/png, 70 bytes]');
    expect(out[0]!.text).not.toContain(PNG);
  });

  it('an HTTP tool’s binary image is one too', () => {
    const out = renderForModel({
      rows: [
        row({ role: 'assistant', toolCalls: [{ callId: 'c1', name: 'fetch-png', argsText: '{}' }] }),
        row({ role: 'tool', tool: card({ callId: 'c1', value: { contentType: 'image/png; charset=binary', sizeBytes: 70, base64: PNG } }) }),
      ],
      system: '',
      redact: (t) => t,
    });
    expect(out.at(-1)).toEqual({ role: 'tool', callId: 'c1', name: 'fetch-png', text: '[image 1: image/png, 70 bytes]', images: [{ label: 'image 1', mimeType: 'image/png', bytes: 70, base64: PNG }] });
  });
});

describe('OpenAI-compatible', () => {
  it('a model that takes images: the tool message’s text, then a user message with the image as image_url', () => {
    const out = toOpenAIMessages(rendered(), { images: true });
    expect(out).toEqual([
      { role: 'user', content: 'show me' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'picture', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: TOOL_TEXT },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'image 1 of the result of picture (call c1):' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
  });

  it('the images follow all of the turn’s tool messages, and a user message right after takes them in', () => {
    const img: ModelImage = { label: 'image 1', mimeType: 'image/png', bytes: 70, base64: PNG };
    const out = toOpenAIMessages(
      [
        { role: 'assistant', text: '', toolCalls: [{ callId: 'a', name: 'p', argsText: '{}' }, { callId: 'b', name: 'q', argsText: '{}' }] },
        { role: 'tool', callId: 'a', name: 'p', text: '[image 1: image/png, 70 bytes]', images: [img] },
        { role: 'tool', callId: 'b', name: 'q', text: 'plain' },
        { role: 'user', text: 'next' },
      ],
      { images: true },
    );
    expect(out.map((m) => m.role)).toEqual(['assistant', 'tool', 'tool', 'user']);
    expect(out[3]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'image 1 of the result of p (call a):' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: 'text', text: 'next' },
      ],
    });
  });

  it('a model not known to take images: text only, saying the image is not shown; no base64 anywhere', () => {
    const out = toOpenAIMessages(rendered());
    expect(out).toHaveLength(3);
    expect(out[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: `${TOOL_TEXT}\n[image 1 is not shown to you: this model is not known to take images]` });
    expect(JSON.stringify(out)).not.toContain(PNG);
  });

  it('over HTTP: gpt-4o gets the image_url part; a model not in the table does not', async () => {
    const server = await startScriptedModelServer();
    try {
      const client = new OpenAIModelClient({ baseUrl: server.url, key: () => undefined, redact: (t) => t });
      server.script([{ kind: 'text', text: 'a white pixel' }, { kind: 'text', text: 'an image' }]);
      for (const model of ['gpt-4o', 'scripted-model']) await client.step({ model, messages: rendered(), tools: [] }, () => undefined, new AbortController().signal);
      const [vision, unknown] = server.requests.map((r) => JSON.stringify(r.body.messages));
      expect(vision).toContain(`"image_url":{"url":"data:image/png;base64,${PNG}"}`);
      expect(unknown).not.toContain(PNG);
      expect(unknown).toContain('not shown to you');
    } finally {
      await server.close();
    }
  });
});

describe('Anthropic', () => {
  it('a model that takes images: an image block in the tool_result', () => {
    const { messages } = toAnthropicMessages(rendered(), { images: true });
    expect(messages.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'c1',
          content: [
            { type: 'text', text: TOOL_TEXT },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          ],
        },
      ],
    });
  });

  it('a model not known to take images: the tool_result’s text alone, saying so', () => {
    const { messages } = toAnthropicMessages(rendered());
    expect(messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'c1', content: `${TOOL_TEXT}\n[image 1 is not shown to you: this model is not known to take images]` }],
    });
    expect(JSON.stringify(messages)).not.toContain(PNG);
  });

  it('over HTTP: a Claude 3+ model gets the image block, Claude 2 does not', async () => {
    const server = await startScriptedModelServer();
    try {
      const client = new AnthropicModelClient({ baseUrl: server.url, key: () => 'k', redact: (t) => t });
      server.script([{ kind: 'text', text: 'a pixel' }, { kind: 'text', text: 'an image' }]);
      for (const model of ['claude-test', 'claude-2.1']) await client.step({ model, messages: rendered(), tools: [] }, () => undefined, new AbortController().signal);
      const [vision, old] = server.requests.map((r) => JSON.stringify(r.body.messages));
      expect(vision).toContain(`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"${PNG}"}}`);
      expect(old).not.toContain(PNG);
    } finally {
      await server.close();
    }
  });
});

describe('which models take images', () => {
  it('knows the vision families by name, and says no when it does not know', () => {
    const yes: [Parameters<typeof acceptsImages>[0], string][] = [
      ['anthropic', 'claude-3-5-sonnet-20241022'],
      ['anthropic', 'claude-opus-4-1'],
      ['openai-compatible', 'gpt-4o'],
      ['openai-compatible', 'gpt-4o-mini-2024-07-18'],
      ['openai-compatible', 'openai/gpt-4.1-nano'],
      ['openai-compatible', 'gpt-5'],
      ['openai-compatible', 'gpt-4-turbo'],
      ['openai-compatible', 'o3'],
      ['openai-compatible', 'o4-mini'],
      ['openai-compatible', 'anthropic/claude-3.5-sonnet'],
      ['openai-compatible', 'google/gemini-2.0-flash-001'],
      ['openai-compatible', 'llava:13b'],
      ['openai-compatible', 'llama3.2-vision:11b'],
      ['openai-compatible', 'qwen2.5vl:7b'],
      ['openai-compatible', 'Qwen/Qwen2.5-VL-7B-Instruct'],
      ['openai-compatible', 'meta-llama/llama-3.2-11b-vision-instruct'],
    ];
    const no: [Parameters<typeof acceptsImages>[0], string][] = [
      ['anthropic', 'claude-2.1'],
      ['anthropic', 'claude-instant-1.2'],
      ['anthropic', 'some-proxy-model'],
      ['openai-compatible', 'gpt-3.5-turbo'],
      ['openai-compatible', 'gpt-4'],
      ['openai-compatible', 'gpt-4-turbo-preview'],
      ['openai-compatible', 'gpt-4o-audio-preview'],
      ['openai-compatible', 'gpt-4o-mini-search-preview'],
      ['openai-compatible', 'o1-mini'],
      ['openai-compatible', 'o3-mini'],
      ['openai-compatible', 'llama3.1:8b'],
      ['openai-compatible', 'mistral'],
      ['openai-compatible', 'anthropic/claude-2'],
      ['openai-compatible', 'scripted-model'],
      ['openai-compatible', ''],
    ];
    for (const [kind, model] of yes) expect(acceptsImages(kind, model), `${kind} ${model}`).toBe(true);
    for (const [kind, model] of no) expect(acceptsImages(kind, model), `${kind} ${model}`).toBe(false);
  });
});

describe('which images go', () => {
  const img = (label: string, over: Partial<ModelImage> = {}): ModelImage => ({ label, mimeType: 'image/png', bytes: 70, base64: PNG, ...over });

  it('only the types models take, and none past the size a model takes: the others are told', () => {
    const plan = planImages(
      [{ role: 'tool', callId: 'c', name: 't', text: '', images: [img('image 1', { mimeType: 'image/svg+xml' }), img('image 2', { base64: 'A'.repeat(MODEL_IMAGE_MAX_BASE64_CHARS + 4) }), img('image 3', { mimeType: 'IMAGE/PNG' })] }],
      true,
    );
    expect(plan.get(0)!.send.map((i) => i.label)).toEqual(['image 3']);
    expect(plan.get(0)!.note).toBe(
      '[image 1 is not shown to you: image/svg+xml is not a type models take (PNG, JPEG, GIF, WebP)]\n[image 2 is not shown to you: it is larger than a model takes (5 MiB)]',
    );
  });

  it('only an image whose bytes are what it says, and at most 20 MiB of them in a request, the latest first', () => {
    const mislabelled = planImages([{ role: 'tool', callId: 'c', name: 't', text: '', images: [img('image 1', { mimeType: 'image/jpeg' }), img('image 2', { base64: 'bm90IGFuIGltYWdlIGF0IGFsbA==' })] }], true);
    expect(mislabelled.get(0)!.send).toEqual([]);
    expect(mislabelled.get(0)!.note).toBe('[image 1 is not shown to you: its bytes are not a image/jpeg image]\n[image 2 is not shown to you: its bytes are not a image/png image]');
    // Five images of 4.5 MiB each: the latest four fit in 20 MiB, the oldest is told.
    const big = PNG + 'A'.repeat(4.5 * 1024 * 1024 - PNG.length);
    const many: ModelMessage[] = Array.from({ length: 5 }, (_, i) => ({ role: 'tool', callId: `c${i}`, name: 't', text: '', images: [img('image 1', { base64: big })] }));
    const plan = planImages(many, true);
    expect([0, 1, 2, 3, 4].map((i) => plan.get(i)!.send.length)).toEqual([0, 1, 1, 1, 1]);
    expect(plan.get(0)!.note).toContain('20 MiB of images at most');
  });

  it('reads the size from the header, and tells an image over 8000 pixels on a side instead of sending it', () => {
    expect(imageSizeOf(PNG)).toEqual({ width: 1, height: 1 });
    const png = (w: number, h: number) => {
      const b = Buffer.from(PNG, 'base64');
      b.writeUInt32BE(w, 16);
      b.writeUInt32BE(h, 20);
      return b.toString('base64');
    };
    const gif = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([0x40, 0x1f, 0x10, 0x00]), Buffer.alloc(20)]).toString('base64');
    expect(imageSizeOf(gif)).toEqual({ width: 8000, height: 16 });
    // A JPEG: SOI, an APP0 segment, then a baseline start of frame of 9001 × 20.
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x14, 0x23, 0x29, 0x03, ...Array(20).fill(0)]).toString('base64');
    expect(imageSizeOf(jpeg)).toEqual({ width: 9001, height: 20 });
    const plan = planImages([{ role: 'tool', callId: 'c', name: 't', text: '', images: [img('image 1', { base64: png(8001, 10) }), img('image 2', { base64: png(8000, 8000) }), img('image 3', { mimeType: 'image/jpeg', base64: jpeg })] }], true);
    expect(plan.get(0)!.send.map((i) => i.label)).toEqual(['image 2']);
    expect(plan.get(0)!.note).toBe('[image 1 is not shown to you: it is larger than 8000 pixels on a side]\n[image 3 is not shown to you: it is larger than 8000 pixels on a side]');
  });

  it(`at most ${MODEL_IMAGES_PER_REQUEST} in a request: the latest`, () => {
    const messages: ModelMessage[] = Array.from({ length: MODEL_IMAGES_PER_REQUEST + 2 }, (_, i) => ({ role: 'tool', callId: `c${i}`, name: 't', text: '', images: [img('image 1')] }));
    const plan = planImages(messages, true);
    expect(plan.get(0)!.send).toEqual([]);
    expect(plan.get(1)!.note).toContain('only the latest 20 images of the conversation are');
    expect(plan.get(2)!.send).toHaveLength(1);
    expect(plan.get(MODEL_IMAGES_PER_REQUEST + 1)!.send).toHaveLength(1);
  });
});
