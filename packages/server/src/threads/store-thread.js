// The store thread's entry. Plain JavaScript on purpose: it turns on Node's compile cache
// before any TypeScript is loaded, so this thread reuses the stripped and compiled
// modules the main thread cached instead of starting a type stripper of its own.
import module from 'node:module';
import { workerData } from 'node:worker_threads';

/** @type {{ compileCache?: string }} */
const { compileCache } = workerData;
if (compileCache) module.enableCompileCache?.(compileCache);
await import('./store-thread-body.ts');
