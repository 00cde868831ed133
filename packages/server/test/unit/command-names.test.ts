// One name per hop of the write path: the name a transport passes to `Changes` is the
// registry's key, and the command it runs is the function of that name in the file of that
// name (`sendMessage` in commands/send-message.ts), so a reader goes from a route to its
// command by the name alone.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { COMMANDS } from '../../src/commands/registry.ts';

const COMMANDS_DIR = join(import.meta.dirname, '..', '..', 'src', 'commands');
const REGISTRY = readFileSync(join(COMMANDS_DIR, 'registry.ts'), 'utf8');

/** `sendWebhookTestEvent` → `send-webhook-test-event`. */
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

for (const name of Object.keys(COMMANDS)) {
  test(`the command ${name} is the function ${name} of a file ${kebab(name)}.ts, which the registry calls`, () => {
    const file = [`${kebab(name)}.ts`, `webhooks/${kebab(name)}.ts`]
      .map((f) => join(COMMANDS_DIR, f))
      .find((f) => existsSync(f));
    assert.ok(file, `no commands/${kebab(name)}.ts nor commands/webhooks/${kebab(name)}.ts`);
    const source = readFileSync(file, 'utf8');
    assert.match(source, new RegExp(`export (async )?function ${name}\\b`));
    // The registry's entry only passes its input through to that function.
    assert.match(REGISTRY, new RegExp(`\\n  ${name}: \\([^]*?\\) =>\\s*${name}\\(`));
  });
}
