// The one place the SDK's tests reach into the server: its test support starts a real app over
// a fresh database of each engine. The SDK's src never imports the server (the lint rule checks
// that); its tests do, to prove the client against the real thing.

export { startTestApp } from '../../../server/test/support/app.ts';
export type { TestAccount, TestApp } from '../../../server/test/support/app.ts';
export { ENGINES } from '../../../server/test/support/engines.ts';
