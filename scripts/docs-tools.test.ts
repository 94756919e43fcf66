import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOOLS_DOC, renderToolsDoc } from './docs-tools';

describe('docs/TOOLS.md', () => {
  it('matches the built-in configs (run `npm run docs:tools` after changing them)', () => {
    const rendered = renderToolsDoc();
    expect(rendered).toContain('+readfile');
    expect(fs.readFileSync(TOOLS_DOC, 'utf8'), 'docs/TOOLS.md is stale: run `npm run docs:tools`').toBe(rendered);
  });
});
