import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_OUTPUT_SETTINGS, ToolOutputSettingsSchema } from '../../../shared/model/settings';
import { draftFieldOf, fromToolOutputDraft, toToolOutputDraft } from './tool-output-draft';

describe('Settings → Tool outputs as typed', () => {
  it('round-trips the settings, the size cap in KiB', () => {
    const saved = { ...DEFAULT_TOOL_OUTPUT_SETTINGS, models: { 'p/m': { contextTokens: 8000, maxOutputTokens: 500 } }, perTool: { 't-1': 'buffer' as const } };
    const d = toToolOutputDraft(saved);
    expect(d.maxResultKiB).toBe('256');
    expect(fromToolOutputDraft(d, saved)).toEqual(saved);
  });

  it('saves what was typed, forgets a remembered choice, keeps the per-model windows', () => {
    const saved = { ...DEFAULT_TOOL_OUTPUT_SETTINGS, models: { m: { contextTokens: 8000, maxOutputTokens: 500 } }, perTool: { a: 'drop' as const, b: 'inline' as const } };
    const d = { ...toToolOutputDraft(saved), baseDir: '  /tmp/outs ', maxResultKiB: '1.5', contextTokens: '128000', overlapPercent: '20' };
    delete d.perTool.a;
    const next = fromToolOutputDraft(d, saved);
    expect(next).toMatchObject({ baseDir: '/tmp/outs', maxResultBytes: 1536, defaultWindow: { contextTokens: 128000, maxOutputTokens: 4096 }, overlapPercent: 20, perTool: { b: 'inline' } });
    expect(next.models).toEqual(saved.models);
    expect(ToolOutputSettingsSchema.safeParse(next).success).toBe(true);
  });

  it('an empty or wrong box becomes NaN, which the settings refuse on that field', () => {
    const d = { ...toToolOutputDraft(DEFAULT_TOOL_OUTPUT_SETTINGS), maxChunksForFullMode: '', contextTokens: 'lots' };
    const next = fromToolOutputDraft(d, DEFAULT_TOOL_OUTPUT_SETTINGS);
    const r = ToolOutputSettingsSchema.safeParse(next);
    expect(r.success).toBe(false);
    const paths = r.error!.issues.map((i) => i.path.join('.')).sort();
    expect(paths).toEqual(['defaultWindow.contextTokens', 'maxChunksForFullMode']);
    expect(paths.map((p) => draftFieldOf(`toolOutputs.${p}`))).toEqual(['contextTokens', 'maxChunksForFullMode']);
    expect(draftFieldOf('toolOutputs/maxResultBytes')).toBe('maxResultKiB');
    expect(draftFieldOf('theme')).toBeNull();
  });
});
