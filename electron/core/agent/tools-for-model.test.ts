import { describe, expect, it } from 'vitest';
import type { ToolView } from '../../../shared/model/tool';
import type { ToolCandidate } from '../routing/directive-runner';
import { providerSafe, toolsForModel } from './tools-for-model';

let n = 0;
function tool(bundle: string, slug: string, extra: Partial<ToolView> = {}): ToolCandidate {
  n++;
  return {
    bundleSlug: bundle,
    tool: {
      id: `id-${bundle}-${slug}-${extra.version ?? '1'}-${n}`,
      bundleId: `b-${bundle}`,
      slug,
      version: '1',
      displayName: slug,
      description: `does ${slug}`,
      tags: [],
      type: 'local',
      argSchema: { type: 'object', properties: { q: { type: 'string', enum: ['a', 'b'] }, list: { type: 'array', items: { type: 'object', properties: { x: { type: 'integer' } } } } } },
      outputSchema: {},
      local: { functionId: 'x.y' },
      isEnabled: true,
      isBuiltIn: false,
      createdAt: '2026-01-01T00:00:00Z',
      modifiedAt: '2026-01-01T00:00:00Z',
      ...extra,
    } as ToolView,
  };
}

describe('toolsForModel', () => {
  it('names tools by slug, bundle__slug when two share one, keeps the whole schema and adds the model-only tools', () => {
    const usable = [tool('files', 'read'), tool('web', 'read'), tool('text', 'count'), tool('text', 'wörd-count')];
    const set = toolsForModel({ usable, modelRouting: [] });
    expect(set.names()).toEqual(['count', 'files__read', 'web__read', 'w_rd-count', 'stop_and_think', 'plan_next_steps']);
    expect(set.byName('web__read')!.tool!.bundleId).toBe('b-web');
    expect(set.byName('count')!.spec).toEqual({ name: 'count', description: 'does count', parameters: usable[2]!.tool.argSchema });
    expect(set.byName('stop_and_think')!.kind).toBe('non-function');
    expect(set.names().every((name) => /^[A-Za-z0-9_-]{1,64}$/.test(name))).toBe(true);
    expect(providerSafe('x'.repeat(100))).toHaveLength(64);
  });

  it('names a built-in function by the name its design gives it (block_edit), and tells two of that name apart', () => {
    const edit = tool('memory', 'block-edit', { local: { functionId: 'memory.block-edit' } });
    const plain = tool('notes', 'block-edit');
    expect(toolsForModel({ usable: [edit, plain], modelRouting: [] }).names().slice(0, 2).sort()).toEqual(['block-edit', 'block_edit']);
    const copy = tool('mine', 'edit-blocks', { local: { functionId: 'memory.block-edit' } });
    const set = toolsForModel({ usable: [edit, copy], modelRouting: [] });
    expect(set.names().slice(0, 2)).toEqual(['memory__block_edit', 'mine__block_edit']);
    expect(set.byName('memory__block_edit')!.tool!.bundleId).toBe('b-memory');
  });

  it('takes the selection (bundles or tools), the highest version, and the @tools tools on top with their routing', () => {
    const v1 = tool('text', 'count');
    const v2 = tool('text', 'count', { version: '1.10.0' });
    const v9 = tool('text', 'count', { version: '1.9.0' });
    const other = tool('files', 'read');
    const extra = tool('web', 'fetch');
    const usable = [v1, v2, v9, other, extra];
    const none = toolsForModel({ usable, selection: { bundleIds: [], toolIds: [] }, modelRouting: [] });
    expect(none.names()).toEqual(['stop_and_think', 'plan_next_steps']);

    const some = toolsForModel({
      usable,
      selection: { bundleIds: ['b-text'], toolIds: [other.tool.id] },
      directiveTools: [{ toolId: extra.tool.id, output: { kind: 'variable', name: 'pages' } }],
      modelRouting: ['read'],
    });
    expect(some.byName('count')!.tool!.version).toBe('1.10.0');
    const pre = toolsForModel({ usable: [tool('text', 'count', { version: '2.0.0' }), tool('text', 'count', { version: '2.0.0-rc1' })], modelRouting: [] });
    expect(pre.byName('count')!.tool!.version).toBe('2.0.0');
    expect(some.byName('fetch')!.routing).toEqual({ kind: 'fixed', destination: { kind: 'variable', name: 'pages' }, writeMode: undefined });
    expect(some.byName('read')!.routing).toEqual({ kind: 'model' });
    expect(Object.keys((some.byName('read')!.spec.parameters as { properties: object }).properties)).toEqual(['q', 'list', 'output', 'write_mode']);
  });
});

describe('TOOL_BEHAVIOR', () => {
  it('answers kinds without a handler with an error and goes on, except handoff which ends the turn', async () => {
    const { TOOL_BEHAVIOR, turnGoesOn } = await import('./tool-behavior');
    expect(Object.keys(TOOL_BEHAVIOR).sort()).toEqual(['agent-as-tool', 'ask-master', 'function', 'handoff', 'non-function', 'root']);
    expect(TOOL_BEHAVIOR.function).toMatchObject({ executesCode: true, logs: 'input+result', action: 'continue-with-result' });
    expect(TOOL_BEHAVIOR['non-function']).toMatchObject({ executesCode: false, logs: 'input', action: 'continue-instant' });
    expect(TOOL_BEHAVIOR['agent-as-tool']).toMatchObject({ createsNode: true, blocksParent: true, passesDocuments: true });
    expect(turnGoesOn('function')).toBe(true);
    expect(turnGoesOn('handoff')).toBe(false);
  });
});
