/**
 * Compile-time checks of the handler table: `npm run typecheck` fails if a missing or an
 * extra handler compiles. The runtime assertions keep Vitest honest about the file.
 */
import { describe, expect, it } from 'vitest';
import { operationNames } from '../../shared/contract';
import { DEFAULT_SETTINGS } from '../../shared/model/settings';
import { defineHandlers } from './router';

const info = {
  name: 'Toolsmith' as const,
  version: '0',
  host: 'headless' as const,
  dataDir: '',
  workspaceDir: '',
  platform: '',
  nodeVersion: '',
  startedAt: '',
};

describe('handler table typing', () => {
  it('accepts exactly the contract and rejects missing or extra handlers at compile time', () => {
    const complete = defineHandlers({
      'app.info': () => info,
      'app.ping': () => ({ echo: '', at: '' }),
      'app.problems': () => [],
      'settings.get': () => DEFAULT_SETTINGS,
      'settings.set': () => DEFAULT_SETTINGS,
    });
    expect(Object.keys(complete).sort()).toEqual([...operationNames].sort());

    // @ts-expect-error 'settings.set' is missing
    defineHandlers({
      'app.info': () => info,
      'app.ping': () => ({ echo: '', at: '' }),
      'app.problems': () => [],
      'settings.get': () => DEFAULT_SETTINGS,
    });

    defineHandlers({
      'app.info': () => info,
      'app.ping': () => ({ echo: '', at: '' }),
      'app.problems': () => [],
      'settings.get': () => DEFAULT_SETTINGS,
      'settings.set': () => DEFAULT_SETTINGS,
      // @ts-expect-error 'app.nothing' is not in the contract
      'app.nothing': () => 1,
    });
  });
});
