// Lint, including the import rules that keep the three rooms apart and the folders in their
// layers (see docs/architecture.md).
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import toolsmith from './scripts/eslint/layers.js';

const NODE_BUILTINS = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'crypto', 'http', 'https', 'net', 'url', 'stream', 'util', 'worker_threads'];

/** Import restrictions per room: the core never sees Electron, the hosts only its types, the renderer never sees electron/. */
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
    files: ['electron/host/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'electron',
              allowTypeImports: true,
              message: 'electron/host also runs headless and as the command line: only type imports from Electron (main.ts passes its values in).',
            },
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

/**
 * Who may import whom (the rule toolsmith/layers, scripts/eslint/layers.js). A unit is a folder
 * of electron/core, electron/host, renderer or renderer/features (with its subfolders), a file
 * directly in one of them or in electron/ (electron/core/app.ts, electron/main.ts), or shared/
 * as a whole. Each unit's product code may import only the units its entry lists; imports inside
 * a unit are free. Type-only, dynamic and stylesheet imports count. Tests (*.test.ts) and test
 * support (testing/ folders) may import anything, but no product file imports test support
 * (toolsmith/no-testing-import).
 *
 * An allowance marked `// to remove:` is a dependency that is wrong and still in the code: the
 * comment says what should move. `npx tsx scripts/layers.ts` prints every import the table does
 * not allow, with its file, and the table as the code is today; `--write` puts that table
 * between the layers:begin and layers:end lines, keeping these comments and marking each
 * allowance the table did not have with `// new:` (look at each: keep it, mark it, or fix the code).
 */
export const layers = {
  // layers:begin
  'electron/core/agent': [
    'electron/core/bundles',
    'electron/core/events.ts',
    'electron/core/invoke',
    'electron/core/lib',
    'electron/core/llm',
    'electron/core/orchestration',
    'electron/core/platform',
    'electron/core/router.ts',
    'electron/core/routing',
    'electron/core/secrets',
    'electron/core/settings',
    'electron/core/timeline',
    'electron/core/tool-output',
    'electron/core/tool-search',
    'shared',
  ],
  'electron/core/agent-profiles': ['electron/core/lib', 'electron/core/router.ts', 'shared'],
  'electron/core/agent-profiles/module.ts': ['electron/core/agent-profiles', 'electron/core/platform'],
  'electron/core/agent/module.ts': [
    'electron/core/agent',
    'electron/core/agent-profiles/module.ts',
    'electron/core/agent/providers/module.ts',
    'electron/core/platform',
    'electron/core/tool-output/module.ts',
    'electron/core/tool-search/module.ts',
  ],
  'electron/core/agent/providers/module.ts': ['electron/core/agent', 'electron/core/platform'],
  'electron/core/app.ts': [
    'electron/core/builtin-functions',
    'electron/core/events.ts',
    'electron/core/invoke',
    'electron/core/mcp-apps',
    'electron/core/mcp-apps/module.ts',
    'electron/core/mcp-client/module.ts',
    'electron/core/mcp-server',
    'electron/core/mcp-server/module.ts',
    'electron/core/modules.ts',
    'electron/core/platform',
    'electron/core/problems.ts',
    'electron/core/registry',
    'electron/core/router.ts',
    'electron/core/secrets',
    'electron/core/settings',
    'electron/core/testcases',
    'electron/core/testcases/module.ts',
    'shared',
  ],
  'electron/core/builtin-functions': ['electron/core/invoke', 'electron/core/lib', 'shared'],
  'electron/core/bundles': ['electron/core/lib', 'shared'],
  'electron/core/chat': [
    'electron/core/agent',
    'electron/core/events.ts',
    'electron/core/invoke',
    'electron/core/llm',
    'electron/core/registry',
    'electron/core/router.ts',
    'electron/core/routing',
    'electron/core/settings',
    'electron/core/timeline',
    'electron/core/tool-output',
    'shared',
  ],
  'electron/core/chat/module.ts': [
    'electron/core/agent/module.ts',
    'electron/core/agent/providers/module.ts',
    'electron/core/chat',
    'electron/core/platform',
    'electron/core/tool-output/module.ts',
  ],
  'electron/core/data-dir.ts': [],
  'electron/core/documents': [
    'electron/core/invoke',
    'electron/core/lib',
    'electron/core/llm',
    'electron/core/router.ts',
    'shared',
  ],
  'electron/core/documents/module.ts': [
    'electron/core/agent/providers/module.ts',
    'electron/core/documents',
    'electron/core/platform',
    'electron/core/tool-output/module.ts',
  ],
  'electron/core/evals': [
    'electron/core/agent',
    'electron/core/bundles',
    'electron/core/events.ts',
    'electron/core/invoke',
    'electron/core/lib',
    'electron/core/llm',
    'electron/core/router.ts',
    'electron/core/testcases',
    'electron/core/timeline',
    'shared',
  ],
  'electron/core/evals/module.ts': [
    'electron/core/agent-profiles/module.ts',
    'electron/core/agent/module.ts',
    'electron/core/agent/providers/module.ts',
    'electron/core/evals',
    'electron/core/platform',
    'electron/core/tool-output/module.ts',
    'electron/core/tool-search/module.ts',
  ],
  'electron/core/events.ts': ['shared'],
  'electron/core/invoke': [
    'electron/core/bundles',
    'electron/core/events.ts',
    'electron/core/lib',
    'electron/core/router.ts',
    'electron/core/secrets',
    'shared',
  ],
  'electron/core/invoke/module.ts': ['electron/core/invoke', 'electron/core/platform'],
  'electron/core/lib': ['shared'],
  'electron/core/llm': ['shared'],
  'electron/core/mcp-apps': [
    'electron/core/bundles',
    'electron/core/invoke',
    'electron/core/mcp-server',
    'electron/core/router.ts',
    'shared',
  ],
  'electron/core/mcp-apps/module.ts': [
    'electron/core/agent/module.ts',
    'electron/core/mcp-apps',
    'electron/core/mcp-client/module.ts',
    'electron/core/mcp-server/module.ts',
    'electron/core/platform',
  ],
  'electron/core/mcp-client': [
    'electron/core/bundles',
    'electron/core/invoke',
    'electron/core/lib',
    'electron/core/router.ts',
    'electron/core/secrets',
    'shared',
  ],
  'electron/core/mcp-client/module.ts': ['electron/core/mcp-client', 'electron/core/platform'],
  'electron/core/mcp-server': [
    'electron/core/agent',
    'electron/core/bundles',
    'electron/core/events.ts',
    'electron/core/invoke',
    'electron/core/lib',
    'electron/core/router.ts',
    'electron/core/routing',
    'electron/core/tool-output',
    'electron/core/tool-search',
    'shared',
  ],
  'electron/core/mcp-server/module.ts': [
    'electron/core/agent/module.ts',
    'electron/core/agent/providers/module.ts',
    'electron/core/mcp-server',
    'electron/core/platform',
    'electron/core/tool-output/module.ts',
  ],
  'electron/core/memory': [
    'electron/core/invoke',
    'electron/core/lib',
    'electron/core/registry-index',
    'electron/core/router.ts',
    'shared',
  ],
  'electron/core/memory/module.ts': [
    'electron/core/agent-profiles/module.ts',
    'electron/core/invoke',
    'electron/core/memory',
    'electron/core/platform',
    'shared',
  ],
  'electron/core/modules.ts': [
    'electron/core/agent-profiles/module.ts',
    'electron/core/agent/module.ts',
    'electron/core/agent/providers/module.ts',
    'electron/core/chat/module.ts',
    'electron/core/documents/module.ts',
    'electron/core/evals/module.ts',
    'electron/core/invoke/module.ts',
    'electron/core/mcp-apps/module.ts',
    'electron/core/mcp-client/module.ts',
    'electron/core/mcp-server/module.ts',
    'electron/core/memory/module.ts',
    'electron/core/platform',
    'electron/core/registry/module.ts',
    'electron/core/routing/module.ts',
    'electron/core/script-tools/module.ts',
    'electron/core/secrets/module.ts',
    'electron/core/testcases/module.ts',
    'electron/core/tool-output/module.ts',
    'electron/core/tool-search/module.ts',
    'electron/core/transfer/module.ts',
    'electron/core/usage/module.ts',
    'electron/core/workflows/module.ts',
  ],
  'electron/core/orchestration': ['electron/core/documents', 'electron/core/lib', 'shared'],
  'electron/core/platform': [
    'electron/core/builtin-functions',
    'electron/core/events.ts',
    'electron/core/invoke',
    'electron/core/problems.ts',
    'electron/core/registry',
    'electron/core/router.ts',
    'electron/core/routing',
    'electron/core/secrets',
    'electron/core/settings',
    'electron/core/timeline',
    'shared',
  ],
  'electron/core/problems.ts': ['electron/core/events.ts', 'shared'],
  'electron/core/registry': [
    'electron/core/bundles',
    'electron/core/events.ts',
    'electron/core/lib',
    'electron/core/problems.ts',
    'electron/core/registry-index',
    'electron/core/router.ts',
    'electron/core/tool-search',
    'shared',
  ],
  'electron/core/registry-index': ['shared'],
  'electron/core/registry/module.ts': ['electron/core/platform', 'electron/core/registry'],
  'electron/core/router.ts': ['shared'],
  'electron/core/routing': [
    'electron/core/events.ts',
    'electron/core/invoke',
    'electron/core/lib',
    'electron/core/registry',
    'electron/core/router.ts',
    'shared',
  ],
  'electron/core/routing/module.ts': ['electron/core/platform', 'electron/core/routing'],
  'electron/core/script-tools': [
    'electron/core/bundles',
    'electron/core/invoke',
    'electron/core/lib',
    'electron/core/router.ts',
    'shared',
  ],
  'electron/core/script-tools/module.ts': [
    'electron/core/lib',
    'electron/core/platform',
    'electron/core/script-tools',
  ],
  'electron/core/secrets': ['electron/core/lib', 'electron/core/router.ts', 'shared'],
  'electron/core/secrets/module.ts': ['electron/core/platform', 'electron/core/secrets'],
  'electron/core/settings': [
    'electron/core/events.ts',
    'electron/core/lib',
    'electron/core/problems.ts',
    'shared',
  ],
  'electron/core/testcases': [
    'electron/core/bundles',
    'electron/core/events.ts',
    'electron/core/invoke',
    'electron/core/lib',
    'electron/core/router.ts',
    'shared',
  ],
  'electron/core/testcases/module.ts': ['electron/core/platform', 'electron/core/testcases'],
  'electron/core/timeline': [
    'electron/core/invoke',
    'electron/core/lib',
    'electron/core/llm',
    'electron/core/routing',
    'electron/core/tool-output',
    'shared',
  ],
  'electron/core/tool-output': [
    'electron/core/invoke',
    'electron/core/lib',
    'electron/core/llm',
    'electron/core/routing',
    'shared',
  ],
  'electron/core/tool-output/module.ts': ['electron/core/platform', 'electron/core/tool-output'],
  'electron/core/tool-search': ['electron/core/lib', 'shared'],
  'electron/core/tool-search/module.ts': [
    'electron/core/agent',
    'electron/core/agent/providers/module.ts',
    'electron/core/platform',
    'electron/core/tool-search',
    'shared',
  ],
  'electron/core/transfer': [
    'electron/core/bundles',
    'electron/core/evals',
    'electron/core/router.ts',
    'electron/core/testcases',
    'shared',
  ],
  'electron/core/transfer/module.ts': [
    'electron/core/evals/module.ts',
    'electron/core/platform',
    'electron/core/testcases/module.ts',
    'electron/core/transfer',
  ],
  'electron/core/usage': [
    'electron/core/invoke',
    'electron/core/lib',
    'electron/core/llm',
    'electron/core/registry',
    'electron/core/router.ts',
    'electron/core/timeline',
    'shared',
  ],
  'electron/core/usage/module.ts': [
    'electron/core/platform',
    'electron/core/tool-output/module.ts',
    'electron/core/usage',
  ],
  'electron/core/workflows': [
    'electron/core/agent',
    'electron/core/events.ts',
    'electron/core/router.ts',
    'electron/core/routing',
    'electron/core/timeline',
    'shared',
  ],
  'electron/core/workflows/module.ts': [
    'electron/core/agent/module.ts',
    'electron/core/platform',
    'electron/core/workflows',
  ],

  'electron/host/cli': [
    'electron/core/app.ts',
    'electron/core/bundles',
    'electron/core/data-dir.ts',
    'electron/core/evals',
    'electron/core/lib',
    'electron/core/testcases',
    'electron/host/cli-host.ts',
    'electron/host/transports',
    'shared',
  ],
  'electron/host/cli-host.ts': ['electron/core/secrets'],
  'electron/host/security.ts': [],
  'electron/host/shell': [
    'electron/core/app.ts',
    'electron/core/lib',
    'electron/core/mcp-apps',
    'electron/host/security.ts',
    'electron/host/static-files.ts',
    'electron/host/transports',
    'shared',
  ],
  'electron/host/static-files.ts': ['electron/host/security.ts'],
  'electron/host/transports': [
    'electron/core/app.ts',
    'electron/core/data-dir.ts',
    'electron/core/lib',
    'electron/core/mcp-server',
    'electron/host/cli-host.ts',
    'electron/host/security.ts',
    'electron/host/static-files.ts',
    'shared',
  ],

  'electron/main.ts': [
    'electron/core/app.ts',
    'electron/core/data-dir.ts',
    'electron/core/secrets',
    'electron/host/cli',
    'electron/host/security.ts',
    'electron/host/shell',
  ],
  'electron/preload.ts': ['electron/host/shell'],

  'renderer/api': ['shared'],
  'renderer/App.tsx': [
    'renderer/api',
    'renderer/components',
    'renderer/features/chat',
    'renderer/features/inspect',
    'renderer/features/mcp-server',
    'renderer/features/settings',
    'renderer/features/tools',
    'renderer/i18n',
    'renderer/stores',
    'renderer/use-theme.ts',
  ],
  'renderer/components': ['renderer/api', 'renderer/i18n', 'renderer/stores', 'shared'],
  'renderer/editor': ['renderer/i18n', 'shared'],
  'renderer/features/chat': [
    'renderer/api',
    'renderer/components',
    'renderer/features/mcp-apps',
    'renderer/features/mcp-server',
    'renderer/features/onboarding',
    'renderer/features/outputs',
    'renderer/features/tools',
    'renderer/hooks',
    'renderer/i18n',
    'renderer/stores',
    'shared',
  ],
  'renderer/features/inspect': [
    'renderer/api',
    'renderer/components',
    'renderer/features/chat',
    'renderer/features/memory',
    'renderer/features/outputs',
    'renderer/i18n',
    'renderer/stores',
    'shared',
  ],
  'renderer/features/mcp-apps': ['renderer/api', 'renderer/components', 'renderer/features/outputs', 'renderer/i18n', 'shared'],
  'renderer/features/mcp-server': [
    'renderer/api',
    'renderer/components',
    'renderer/features/settings',
    'renderer/i18n',
    'shared',
  ],
  'renderer/features/memory': ['renderer/api', 'renderer/components', 'renderer/i18n', 'shared'],
  'renderer/features/onboarding': ['renderer/api', 'renderer/components', 'renderer/i18n', 'renderer/stores'],
  'renderer/features/outputs': ['shared'],
  'renderer/features/settings': [
    'renderer/api',
    'renderer/components',
    'renderer/features/chat',
    'renderer/features/outputs',
    'renderer/i18n',
    'renderer/stores',
    'shared',
  ],
  'renderer/features/tools': [
    'renderer/api',
    'renderer/components',
    'renderer/editor',
    'renderer/features/mcp-apps',
    'renderer/features/mcp-server',
    'renderer/hooks',
    'renderer/i18n',
    'renderer/stores',
    'shared',
  ],
  'renderer/global.d.ts': ['shared'],
  'renderer/hooks': [],
  'renderer/i18n': ['shared'],
  'renderer/main.tsx': ['renderer/App.tsx', 'renderer/api', 'renderer/styles.css'],
  'renderer/stores': [],
  'renderer/use-theme.ts': ['renderer/api'],

  'shared': [],
  // layers:end
};

export default tseslint.config(
  { ignores: ['dist/**', 'dist-electron/**', '.bench-dist/**', 'release/**', 'node_modules/**', '.test-results/**', 'e2e/artifacts/**', 'coverage/**', '.conformance/**'] },
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
  {
    // The rules of hooks, and the React Compiler's checks that find defects without the compiler
    // (the app is not built with it). Left off: set-state-in-effect (it cannot tell an effect
    // that takes a one-time request from a store, e.g. "open Settings at this secret", from state
    // an effect derives); incompatible-library (values the compiler could not memoize, such as
    // react-hook-form's watch(): nothing to fix where nothing is compiled); and the compiler's
    // own notes: todo (syntax it does not handle yet, such as try/finally), hooks (a string named
    // useSettings taken for a hook), memo-dependencies (exhaustive-deps' finding again).
    files: ['renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      'react-hooks/refs': 'error',
      'react-hooks/purity': 'error',
      'react-hooks/immutability': 'error',
      'react-hooks/globals': 'error',
      'react-hooks/set-state-in-render': 'error',
      'react-hooks/static-components': 'error',
      'react-hooks/component-hook-factories': 'error',
      'react-hooks/error-boundaries': 'error',
      'react-hooks/use-memo': 'error',
      'react-hooks/void-use-memo': 'error',
      'react-hooks/preserve-manual-memoization': 'error',
      'react-hooks/config': 'error',
      'react-hooks/gating': 'error',
      'react-hooks/unsupported-syntax': 'error',
    },
  },
  ...roomRules,
  {
    plugins: { toolsmith },
    rules: {
      // Product code (not a test, not in testing/, e2e/, scripts/ or bench/) never imports a testing/ folder.
      'toolsmith/no-testing-import': 'error',
      // Fixtures, test servers and test helpers live in testing/ folders (e2e/fixtures is Playwright's own).
      'toolsmith/test-support-in-testing': 'error',
    },
  },
  {
    files: ['electron/**/*.{ts,tsx}', 'shared/**/*.{ts,tsx}', 'renderer/**/*.{ts,tsx}'],
    rules: { 'toolsmith/layers': ['error', { layers }] },
  },
);
