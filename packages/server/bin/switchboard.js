#!/usr/bin/env node
// The `switchboard` command. The service is TypeScript run by Node 24's type
// stripping; on an older system Node this re-runs itself on the Node 24 that
// the project installs as a dependency.
import { spawnSync } from 'node:child_process';
import module, { createRequire } from 'node:module';

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
  // Node keeps the compiled (and type-stripped) modules in a cache directory (the system's
  // temporary one unless NODE_COMPILE_CACHE says otherwise), so a later start skips
  // stripping and compiling them: ~20 MB less resident, the TypeScript stripper
  // never loaded, and every CLI command starts sooner.
  module.enableCompileCache?.();
  await import('../src/main.ts');
}
