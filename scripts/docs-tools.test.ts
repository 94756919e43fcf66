import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOOLS_DOC, renderToolsDoc } from './docs-tools';

describe('docs/TOOLS.md', () => {
  it('matches the built-in configs (run `npm run docs:tools` after changing them)', () => {
    const rendered = renderToolsDoc();
    expect(rendered).toContain('+readfile');
    // The tools only models have are documented from their specs, the orchestration tools among them.
    for (const name of ['### stop_and_think', '### tool_output', '### tool_search', '### route_to_<agent>', '### handoff', '### ask_master']) expect(rendered).toContain(name);
    expect(fs.readFileSync(TOOLS_DOC, 'utf8'), 'docs/TOOLS.md is stale: run `npm run docs:tools`').toBe(rendered);
  });
});
