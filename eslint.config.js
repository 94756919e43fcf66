// Lint, including the import rules that keep the three rooms apart (see docs/architecture.md).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'crypto', 'http', 'https', 'net', 'url', 'stream', 'util', 'worker_threads'];

/** Import restrictions per room: the core never sees Electron, the renderer never sees electron/. */
export const roomRules = [
  {
    files: ['electron/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'electron/core must not import Electron: the core also runs under plain Node.' }],
          patterns: [
            { group: ['electron/*'], message: 'electron/core must not import Electron.' },
            { group: ['**/host', '**/host/**', '../main', '../preload'], message: 'electron/core must not import the hosts or the shell.' },
            { group: ['**/renderer/**'], message: 'electron/core must not import the renderer.' },
          ],
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'The renderer talks to the core only through the contract.' }],
          patterns: [
            { group: ['**/electron/**', '**/electron'], message: 'The renderer must not import electron/: use the contract in shared/.' },
            { group: NODE_BUILTINS, message: 'The renderer has no Node APIs.' },
          ],
        },
      ],
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'shared/ is imported by both sides: no Electron.' }],
          patterns: [
            { group: ['**/electron/**', '**/renderer/**', 'react', 'react-dom'], message: 'shared/ may import only shared/ and pure libraries.' },
            { group: NODE_BUILTINS, message: 'shared/ has no Node APIs.' },
          ],
        },
      ],
    },
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'dist-electron/**', '.bench-dist/**', 'release/**', 'node_modules/**', '.test-results/**', 'e2e/artifacts/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-empty-object-type': 'off',
      'no-empty-pattern': 'off',
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  ...roomRules,
);
