import { newId } from '../lib/ids.ts';
import { validationError } from '../domain/errors.ts';
import { SANDBOX_NUMBERS_PER_ACCOUNT } from '../domain/sandbox-numbers.ts';
import { insertAccount } from '../store/repos/accounts.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';
import { provisionSandboxNumber } from './add-number.ts';

/** A new account and the sandbox numbers it was given. */
export interface CreatedAccount {
  id: string;
  name: string;
  testNumbers: string[];
}

/** Creates an account with its sandbox (test-mode) numbers. */
export async function createAccount(
  tx: WriteTx,
  input: { name: string },
  deps: CommandDeps,
): Promise<CreatedAccount> {
  const name = input.name.trim();
  if (!name) throw validationError('name', 'name must not be empty.');
  const now = deps.clock.now();
  const id = newId('acct', now);
  await insertAccount(tx.db, { id, name, help_reply: null, created_at: now });
  const testNumbers: string[] = [];
  for (let i = 0; i < SANDBOX_NUMBERS_PER_ACCOUNT; i++) {
    testNumbers.push(await provisionSandboxNumber(tx, id, deps));
  }
  return { id, name, testNumbers };
}
