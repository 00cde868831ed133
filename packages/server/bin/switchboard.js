#!/usr/bin/env node
// The `switchboard` command. The service is TypeScript run by Node 24's type
// stripping; on an older system Node this re-runs itself on the Node 24 that
// the project installs as a dependency.
import { spawnSync } from 'node:child_process';
import module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  const require = createRequire(import.meta.url);
  let node;
  try {
    node = require.resolve('node/bin/node');
  } catch {
    console.error('switchboard needs Node.js 24 or later; run `npm ci` in the project first.');
    process.exit(1);
  }
  const result = spawnSync(node, process.argv.slice(1), { stdio: 'inherit' });
  process.exit(result.status ?? 1);
} else {
  // Node keeps the compiled (and type-stripped) modules in a cache directory, so a later
  // start skips stripping and compiling them: ~16 MB less resident, the TypeScript
  // stripper never loaded, and every CLI command starts sooner. The directory is the
  // user's own cache, not Node's default under the shared temporary one, where another
  // user could have put entries first. NODE_COMPILE_CACHE, if set, has already chosen.
  if (!process.env.NODE_COMPILE_CACHE) {
    const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
    module.enableCompileCache?.(join(cacheHome, 'switchboard', 'node-compile-cache'));
  }
  await import('../src/main.ts');
}
