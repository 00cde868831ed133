import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Encrypts secrets that must be used again in the clear (webhook signing
 * secrets), so the database alone never reveals them. AES-256-GCM with a
 * random nonce; the tag authenticates every ciphertext.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

const VERSION = 'v1';

/** A SecretBox over a 32-byte key. */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('The secret key must be 32 bytes.');
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    },
    open(sealed) {
      const [version, data] = sealed.split(':');
      if (version !== VERSION || !data) throw new Error('Unknown sealed secret format.');
      const raw = Buffer.from(data, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/** The key file of a data directory (used when `SWITCHBOARD_SECRET_KEY` is unset). */
export function secretKeyFile(dataDir: string): string {
  return join(dataDir, 'secret.key');
}

/** The key a key file holds (base64 of 32 bytes), or null if it holds anything else. */
export function decodeKeyFile(text: string): Buffer | null {
  const key = Buffer.from(text.trim(), 'base64');
  return key.length === 32 ? key : null;
}

/**
 * The key: `SWITCHBOARD_SECRET_KEY` (32 bytes as base64 or hex) when set —
 * every instance sharing a PostgreSQL database must share it — otherwise a key
 * file created once in the data directory, readable by its owner only.
 */
export function loadSecretKey(secretKey: string | null, dataDir: string): Buffer {
  if (secretKey) {
    const key = /^[0-9a-f]{64}$/i.test(secretKey)
      ? Buffer.from(secretKey, 'hex')
      : Buffer.from(secretKey, 'base64');
    if (key.length !== 32)
      throw new Error('SWITCHBOARD_SECRET_KEY must be 32 bytes (base64 or hex).');
    return key;
  }
  const path = secretKeyFile(dataDir);
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true });
    // 'wx' fails if another process created it first; that process's key is then read.
    try {
      writeFileSync(path, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    chmodSync(path, 0o600);
  }
  return Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
}
