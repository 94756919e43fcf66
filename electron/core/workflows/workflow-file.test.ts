import { describe, expect, it } from 'vitest';
import { NO_STEPS } from './strings';
import { defaultTitle, parseWorkflow, summaryOf } from './workflow-file';

describe('parseWorkflow', () => {
  it('reads the title and one step per "## " heading, with each body parsed', () => {
    const text = [
      '# Daily digest',
      'What this does (not run).',
      '',
      '## Collect',
      '@model none',
      '@input file:notes/today.md (output=variable:today)',
      '',
      '## Summarise ##',
      '@input variable:today',
      'Summarise this.',
      '### a sub-heading stays in the step',
    ].join('\n');
    const w = parseWorkflow(text, 'workflows/daily.md');
    expect(w.title).toBe('Daily digest');
    expect(w.error).toBeUndefined();
    expect(w.steps.map((s) => [s.title, s.line, s.parsed.modelNone])).toEqual([
      ['Collect', 4, true],
      ['Summarise', 8, false],
    ]);
    expect(w.steps[0]!.parsed.directives.map((d) => d.kind)).toEqual(['model', 'input']);
    expect(w.steps[1]!.parsed.prompt).toBe('Summarise this.\n### a sub-heading stays in the step');
    expect(summaryOf('workflows/daily.md', w)).toEqual({
      path: 'workflows/daily.md',
      title: 'Daily digest',
      steps: [
        { title: 'Collect', modelNone: true },
        { title: 'Summarise', modelNone: false },
      ],
    });
  });

  it('takes the file name as the title when there is none, and numbers untitled steps', () => {
    const w = parseWorkflow('## \r\n@model none\r\n##\r\nx\r\n', 'workflows/my-flow.md');
    expect(w.title).toBe('my-flow');
    expect(w.steps.map((s) => s.title)).toEqual(['Step 1', 'Step 2']);
    expect(w.steps[0]!.parsed.modelNone).toBe(true);
  });

  it('ignores headings inside fenced code blocks, and a "# " after the first step', () => {
    const text = ['\uFEFF## Only step', '```md', '## not a step', '# not a title', '```', '# still the step', '~~~', '## nor this', '~~~'].join('\n');
    const w = parseWorkflow(text, 'x.md');
    expect(w.title).toBe('x');
    expect(w.steps.map((s) => s.title)).toEqual(['Only step']);
    expect(w.steps[0]!.body).toContain('# still the step');
  });

  it('reports a file with no steps', () => {
    for (const text of ['', '# Title only\nsome text', '##no-space is not a heading', '```\n## fenced\n```']) {
      const w = parseWorkflow(text, 'w.md');
      expect(w.steps).toEqual([]);
      expect(w.error).toBe(NO_STEPS);
    }
  });

  it('names the step and the file line of a directive error', () => {
    const text = ['# T', '## First', '@model none', '## Second', 'text', '@input file:a.md (output=nowhere)', '@tools x(colour=red)'].join('\n');
    const w = parseWorkflow(text, 'w.md');
    expect(w.errors.map((e) => [e.step, e.line])).toEqual([
      ['Second', 6],
      ['Second', 7],
    ]);
    expect(w.error).toMatch(/^step "Second", line 6, column \d+: .*\(and 1 more\)$/);
  });

  it('makes a title from a file name', () => {
    expect(defaultTitle('workflows/Weekly Report.md')).toBe('Weekly Report');
    expect(defaultTitle('a\\b.MD')).toBe('b');
  });

  describe('front matter', () => {
    const steps = ['# Digest', '## One', 'Say hi.', '## Two', '@tools readfile', 'Read.'];

    it('sets extraction thresholds; the steps keep their file lines', () => {
      const text = ['---', 'extraction:', '  maxChunksForFullMode: 3', '  overlapPercent: 20', '---', ...steps].join('\n');
      const w = parseWorkflow(text, 'workflows/d.md');
      expect(w.error).toBeUndefined();
      expect(w.extraction).toEqual({ maxChunksForFullMode: 3, overlapPercent: 20 });
      expect(w.title).toBe('Digest');
      expect(w.steps.map((s) => [s.title, s.line])).toEqual([
        ['One', 7],
        ['Two', 9],
      ]);
    });

    it('a "---" that is not on the first line, or never closed, is not front matter', () => {
      expect(parseWorkflow(['# T', '---', 'extraction: 1', '---', '## S', 'x'].join('\n'), 'w.md').extraction).toBeUndefined();
      const open = parseWorkflow(['---', 'extraction:', '  maxChunksForFullMode: 3', '## S', 'x'].join('\n'), 'w.md');
      expect(open.extraction).toBeUndefined();
      expect(open.steps).toHaveLength(1);
    });

    it('empty front matter is fine', () => {
      const w = parseWorkflow(['---', '---', ...steps].join('\n'), 'w.md');
      expect(w.error).toBeUndefined();
      expect(w.extraction).toBeUndefined();
    });

    it('an unknown key is refused, naming the keys that are known', () => {
      const w = parseWorkflow(['---', 'extraction:', '  maxChunks: 3', '---', ...steps].join('\n'), 'w.md');
      expect(w.error).toBe(
        "front matter, line 1: extraction: unknown key 'maxChunks' (known: extraction.maxChunksForFullMode, extraction.avgLineBytesForFullMode, extraction.overlapPercent)",
      );
      expect(parseWorkflow(['---', 'model: x', '---', ...steps].join('\n'), 'w.md').error).toMatch(/^front matter, line 1: unknown key 'model'/);
    });

    it('a value out of range is refused with the field', () => {
      const w = parseWorkflow(['---', 'extraction:', '  overlapPercent: 90', '---', ...steps].join('\n'), 'w.md');
      expect(w.error).toMatch(/^front matter, line 1: extraction\.overlapPercent: /);
      expect(w.error).toContain('50');
    });

    it('YAML that does not parse is refused with its line in the file', () => {
      const w = parseWorkflow(['---', 'extraction:', '  maxChunksForFullMode: 3', ' bad: [', '---', ...steps].join('\n'), 'w.md');
      expect(w.error).toMatch(/^front matter, line [2-5]: /);
      expect(w.extraction).toBeUndefined();
    });
  });
});
