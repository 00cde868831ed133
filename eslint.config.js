// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Imports a layer must never make: the dependency rule of docs/architecture.md, checked. */
const layer = (files, patterns, message) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }],
  },
});

const OUTER_LAYERS = [
  '**/http/**',
  '**/app-api/**',
  '**/mcp/**',
  '**/realtime/**',
  '**/delivery/**',
  '**/threads/**',
  '**/app.ts',
  '**/main.ts',
  '**/server.ts',
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'data/**',
      'test-results/**',
      'bench-results/**',
      'coverage/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2024, sourceType: 'module' },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'off',
    },
  },
  {
    // The softphone runs in browsers; its service worker in a worker scope.
    files: ['packages/web/src/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['packages/web/public/sw.js'],
    languageOptions: { globals: { ...globals.serviceworker } },
  },
  {
    // Tests read JSON responses loosely; the assertions are the type check.
    files: ['packages/*/test/**', 'packages/*/bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  layer(
    ['packages/server/src/domain/**'],
    [
      'fastify',
      'fastify/*',
      'kysely',
      'kysely/*',
      'pg',
      'undici',
      'ws',
      'node:*',
      '../store/**',
      '../commands/**',
      '../carriers/**',
      ...OUTER_LAYERS,
    ],
    'domain/ holds pure rules: no I/O, no framework, no store.',
  ),
  layer(
    ['packages/server/src/commands/**', 'packages/server/src/presenters/**'],
    ['fastify', 'fastify/*', ...OUTER_LAYERS],
    'commands/ and presenters/ are called by the outer layers, never the other way round.',
  ),
  layer(
    ['packages/server/src/store/**'],
    ['fastify', 'fastify/*', '**/commands/**', '**/carriers/**', ...OUTER_LAYERS],
    'store/ is a port used by commands; it knows nothing of use cases or transports.',
  ),
  layer(
    ['packages/sdk/src/**'],
    ['**/server/**', '@switchboard/server', '@switchboard/server/*'],
    'The SDK stands alone: it never imports the server.',
  ),
);
