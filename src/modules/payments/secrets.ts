/**
 * Payment providers' secrets at rest: AES-256-GCM with SECRETS_KEY. On the embedded database a key
 * is made in DATA_DIR on first use; with DATABASE_URL and no SECRETS_KEY a secret cannot be saved
 * (409 naming the setting), because a key made on one machine would not be on the next.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../lib/app-error.js';

const KEY_FILE = 'secrets.key';
const VERSION = 'v1';

export interface SecretsSettings {
  secretsKey: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
}

export class Secrets {
  private key: Buffer | null = null;

  constructor(private readonly settings: SecretsSettings) {}

  /** `v1:<iv>:<tag>:<ciphertext>`, base64 each part. */
  encrypt(plain: string): string {
    const key = this.keyForUse();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  decrypt(stored: string): string {
    const [version, iv, tag, body] = stored.split(':');
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('a stored secret is not in a known format');
    const decipher = createDecipheriv('aes-256-gcm', this.keyForUse(), Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }

  private keyForUse(): Buffer {
    if (this.key) return this.key;
    if (this.settings.secretsKey) this.key = Buffer.from(this.settings.secretsKey, 'base64');
    else if (this.settings.databaseUrl) {
      throw new AppError('CONFLICT', 'saving a payment secret needs SECRETS_KEY (32 bytes, base64) when DATABASE_URL is set');
    } else this.key = keyFileOf(this.settings.dataDir);
    return this.key;
  }
}

/** The embedded database's key file, made on first use (0600); two processes racing keep the first. */
function keyFileOf(dataDir: string): Buffer {
  const path = join(dataDir, KEY_FILE);
  try {
    return Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  } catch {
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  }
}
