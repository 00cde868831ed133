import { randomBase62 } from '../lib/ids.ts';
import { hashPassword } from '../lib/secrets.ts';
import { countAccounts } from '../store/repos/accounts.ts';
import type { Store } from '../store/store.ts';
import type { CommandDeps } from './context.ts';
import { createAccount } from './create-account.ts';
import { createApiKey } from './create-api-key.ts';
import { createUser } from './create-user.ts';

/** What a fresh installation prints so its owner can start at once. */
export interface DemoAccount {
  accountId: string;
  testKey: string;
  testNumbers: string[];
  login: { email: string; password: string };
}

/**
 * On an empty store, creates a demo account with a test key, sandbox numbers
 * and an owner login; returns null when any account exists already.
 */
export async function bootstrapDemo(store: Store, deps: CommandDeps): Promise<DemoAccount | null> {
  if ((await countAccounts(store.db)) > 0) return null;
  const password = randomBase62(16);
  const passwordHash = await hashPassword(password);
  return store.write(async (tx) => {
    // Re-checked inside the write lock: two processes starting at once make one demo.
    if ((await countAccounts(tx.db)) > 0) return null;
    const account = await createAccount(tx, { name: 'Demo' }, deps);
    const key = await createApiKey(tx, { accountId: account.id, mode: 'test' }, deps);
    const user = await createUser(
      tx,
      {
        accountId: account.id,
        email: 'owner@demo.switchboard.local',
        name: 'Demo Owner',
        role: 'owner',
        passwordHash,
      },
      deps,
    );
    return {
      accountId: account.id,
      testKey: key.secret,
      testNumbers: account.testNumbers,
      login: { email: user.email, password },
    };
  });
}
