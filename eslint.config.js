// @ts-check
import { readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { noRestrictedDynamicImports } from './scripts/lint-dynamic-imports.js';

// The dependency rule of docs/architecture.md, checked. Each server layer names the parts of
// packages/server/src it may import; every other part (a folder, or a top-level module such
// as config.ts) it may not, a folder added later included. The rules are no-restricted-imports
// patterns, also run on `import()` (scripts/lint-dynamic-imports.js). One entry per set of
// files: a later entry that sets the rule for the same files replaces the earlier one.

/** The folders and top-level modules of packages/server/src. */
const SERVER_PARTS = readdirSync(new URL('packages/server/src/', import.meta.url), {
  withFileTypes: true,
})
  .filter((entry) => entry.isDirectory() || entry.name.endsWith('.ts'))
  .map((entry) => entry.name);

/** The import paths that reach a server part, from anywhere in the server. */
const reaching = (part) => (part.endsWith('.ts') ? `**/${part}` : `**/${part}/**`);

/** Node's own modules, with or without the `node:` prefix (`node:fs`, `fs/promises`). */
const NODE_BUILTINS = [
  { group: ['node:*'] },
  {
    regex: `^(${builtinModules
      .filter((name) => !name.startsWith('_') && !name.startsWith('node:'))
      .join('|')})(/|$)`,
  },
];

const plugins = {
  layers: { rules: { 'no-restricted-dynamic-imports': noRestrictedDynamicImports } },
};

/** Refuses the import `patterns` in `files` with the `message` that says the rule. */
const restrict = (files, message, patterns) => {
  const options = { patterns: patterns.map((pattern) => ({ ...pattern, message })) };
  return {
    files,
    plugins,
    rules: {
      'no-restricted-imports': ['error', options],
      'layers/no-restricted-dynamic-imports': ['error', options],
    },
  };
};

/**
 * The server layer `name` may import the parts in `may`, only types from those in `mayTypes`,
 * no other part of the server, and nothing `refused` (packages, mostly).
 */
const layer = (name, message, { may = [], mayTypes = [], refused = [] }) => {
  const otherParts = SERVER_PARTS.filter(
    (part) => part !== name && !may.includes(part) && !mayTypes.includes(part),
  );
  return restrict([`packages/server/src/${name}/**`], message, [
    { group: otherParts.map(reaching) },
    ...(mayTypes.length > 0 ? [{ group: mayTypes.map(reaching), allowTypeImports: true }] : []),
    ...refused,
  ]);
};

const ENGINE_BRANCH =
  'No engine-name branch outside store/engine/: ask capabilitiesOf(db) (store/engine/capabilities.ts).';
/** The parts that speak to the outside: REST, the softphone's API, the tool server, realtime. */
const TRANSPORTS = ['http', 'app-api', 'mcp', 'realtime'];

const FRAMEWORKS = { group: ['fastify', 'fastify/*', '@fastify/*', 'kysely', 'kysely/*'] };
const IO_PACKAGES = { group: ['pg', 'pg/*', 'undici', 'undici/*', 'ws', 'pino'] };

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
  layer('domain', 'domain/ holds pure rules: no I/O, no framework, no store.', {
    // A rule may take an injected port (a Clock) as a parameter, never call lib itself.
    mayTypes: ['lib'],
    refused: [FRAMEWORKS, IO_PACKAGES, ...NODE_BUILTINS],
  }),
  layer(
    'lib',
    'lib/ (ids, clock, logger, secrets) is used by every layer and imports none of them.',
    {},
  ),
  layer(
    'store',
    'store/ is a port used by commands; it knows nothing of use cases or transports.',
    { may: ['domain', 'lib'], refused: [{ group: ['fastify', 'fastify/*'] }] },
  ),
  layer(
    'presenters',
    'presenters/ turn store rows (their types only) into API shapes, with domain and lib; nothing calls out from them.',
    { may: ['domain', 'lib'], mayTypes: ['store'], refused: [FRAMEWORKS, IO_PACKAGES] },
  ),
  layer(
    'commands',
    'commands/ use domain, store, presenters, lib, queries and the Carrier port (its types); the outer layers call them, never the other way round.',
    {
      may: ['domain', 'store', 'presenters', 'lib', 'queries'],
      mayTypes: ['carriers'],
      refused: [{ group: ['fastify', 'fastify/*'] }],
    },
  ),
  layer(
    'queries',
    'queries/ read: domain, store, presenters and lib; they change nothing and run no command.',
    {
      may: ['domain', 'store', 'presenters', 'lib'],
      refused: [{ group: ['fastify', 'fastify/*'] }],
    },
  ),
  layer(
    'carriers',
    'carriers/ use domain, store and lib; what they report reaches commands through the handlers they are given.',
    { may: ['domain', 'store', 'lib'], refused: [{ group: ['fastify', 'fastify/*'] }] },
  ),
  layer(
    'workers',
    'workers/ run carriers, commands and the webhook worker in the background; they never import a transport.',
    {
      // background.ts starts the worker role's loops, the webhook worker (delivery/) among them.
      may: ['commands', 'domain', 'store', 'carriers', 'lib', 'delivery'],
      mayTypes: ['config.ts'],
      refused: [{ group: ['fastify', 'fastify/*'] }],
    },
  ),
  layer(
    'voice',
    'voice/ runs and configures the SIP programs (Kamailio, rtpengine, the sandbox far end) with lib only; calls reach commands through the HTTP routes Kamailio calls.',
    { refused: [FRAMEWORKS, IO_PACKAGES], may: ['lib'] },
  ),
  {
    // Engine differences are capabilities named for what they mean; only store/engine/ asks
    // which engine runs (docs/architecture.md).
    files: ['packages/server/src/**'],
    ignores: ['packages/server/src/store/engine/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          "ImportSpecifier[imported.name='engineOf']",
          'BinaryExpression > Literal[value=/^(sqlite|postgres)$/]',
          'SwitchCase > Literal[value=/^(sqlite|postgres)$/]',
        ].map((selector) => ({ selector, message: ENGINE_BRANCH })),
      ],
    },
  },
  restrict(
    TRANSPORTS.map((part) => `packages/server/src/${part}/**`),
    'Transports read through queries/ and change through commands/ (Changes): a repository only for its row types.',
    [{ group: ['**/store/repos/**'], allowTypeImports: true }],
  ),
  restrict(
    ['packages/sdk/src/**'],
    'The SDK stands alone: it never imports the server or the softphone.',
    [
      {
        group: [
          '**/server/**',
          '@switchboard/server',
          '@switchboard/server/*',
          '**/web/**',
          '@switchboard/web',
          '@switchboard/web/*',
        ],
      },
    ],
  ),
  restrict(
    ['packages/web/src/**'],
    'The softphone imports its own code, the SDK package and its libraries: nothing of the server, the SDK only by its package name, nothing of Node.',
    [
      { group: ['**/server/**', '@switchboard/server', '@switchboard/server/*'] },
      // The SDK's sources by a relative path (`../../../sdk/src/…`), not its package's exports.
      { regex: '^(\\.\\./)+(.*/)?sdk/' },
      ...NODE_BUILTINS,
    ],
  ),
);
