// Loads (without running) every module `switchboard serve` loads on its two threads, so
// that Node's compile cache holds them all before the server starts; see warmCompileCache
// in switchboard.js. Run with NODE_COMPILE_CACHE set and the server's own V8 flags.
const SERVER = new URL('../src/', import.meta.url);
await Promise.all(
  [
    // The HTTP thread (main.ts runs the CLI when imported: its graph is server.ts and below).
    'server.ts',
    'commands/bootstrap-demo.ts',
    // The store thread (store-thread-body.ts starts the store when imported).
    'commands/changes.ts',
    'delivery/webhook-deps.ts',
    'lib/secret-box.ts',
    'workers/background.ts',
  ].map((path) => import(new URL(path, SERVER).href)),
);
