/** The first-run checklist (renderer/features/onboarding) runs a built-in tool by its bundle id: it must exist. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TIME_BUNDLE_ID, TIME_NOW_SLUG } from '../renderer/features/onboarding/checklist';

const RESOURCES = path.resolve(import.meta.dirname, '../resources/bundles/time');

describe('the tool the first-run checklist runs', () => {
  it('is the built-in time bundle’s now tool, which needs no arguments', () => {
    const bundle = JSON.parse(fs.readFileSync(path.join(RESOURCES, 'bundle.json'), 'utf8')) as { id: string };
    expect(bundle.id).toBe(TIME_BUNDLE_ID);
    const tool = JSON.parse(fs.readFileSync(path.join(RESOURCES, 'tools', `${TIME_NOW_SLUG}.json`), 'utf8')) as { argSchema: { required?: string[] } };
    expect(tool.argSchema.required ?? []).toEqual([]);
  });
});
