/** The renderer's strings choose plural forms through renderer/i18n/plural.ts (Intl.PluralRules), never by comparing a count with 1. */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

it('every string file chooses its plural forms through isOne', () => {
  const dir = path.resolve(import.meta.dirname, '..', 'renderer', 'i18n');
  const byHand = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .filter((f) => /\b\w+ === 1 \?/.test(fs.readFileSync(path.join(dir, f), 'utf8')));
  expect(byHand).toEqual([]);
});
