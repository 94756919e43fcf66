/**
 * "Open the new tool ready to run": a tool made from a curl command is handed to the workbench
 * once (created-tool-store.ts), and the tester's form (tester/schema-form.ts) starts from the
 * command's values, typed, so "Run" sends the request as pasted with nothing typed.
 */
import { describe, expect, it } from 'vitest';
import { curlToTool, parseCurl } from '../../../../shared/model/curl';
import type { ToolView } from '../../../../shared/model/tool';
import { initialValue, type Schema } from '../tester/schema-form';
import { useCreatedTool } from './created-tool-store';

describe('a tool made from a curl command opens ready to run', () => {
  it("the tester's arguments start from the command's values, typed", () => {
    const p = curlToTool(parseCurl(`curl 'https://api.example.com/v1/cities/42/forecast?city=Oslo&days=2&metric=true&zip=0150'`));
    const schema = p.tool.argSchema as Schema;
    expect(initialValue(schema, schema)).toEqual({ cityId: 42, city: 'Oslo', days: 2, metric: true, zip: '0150' });
  });

  it('the created tool is handed to the workbench once, with its notice', () => {
    const tool = { id: 't1', bundleId: 'b1', slug: 'forecast', version: '1' } as unknown as ToolView;
    expect(useCreatedTool.getState().take()).toBeNull();
    useCreatedTool.getState().open(tool, 'Created forecast version 1.');
    expect(useCreatedTool.getState().toOpen).toBe(tool);
    expect(useCreatedTool.getState().take()).toEqual({ tool, notice: 'Created forecast version 1.' });
    expect(useCreatedTool.getState().take()).toBeNull();
  });
});
