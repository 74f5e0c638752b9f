import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Where a single embedded instance keeps its generated secret: beside its database, readable by the owner only. */
export const secretFile = (dataDir: string) => path.join(dataDir, 'secret.key');

/** The secret kept in the data folder, or undefined when there is none. */
export function readStoredSecret(dataDir: string): string | undefined {
  try {
    return fs.readFileSync(secretFile(dataDir), 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return undefined;
  }
}

/**
 * The server secret keys three things: the HMAC under which API keys are looked up
 * (api-keys.ts), the AES-256-GCM key that encrypts them at rest so their owner can read them again
 * (key-cipher.ts, via HKDF), and the console's CSRF tokens (console/csrf.ts, via HKDF). Changing
 * it therefore makes every stored API key unusable. Replicas sharing a database must share it
 * (DETECTD_SECRET); a single embedded instance generates one on first start and keeps it beside
 * its database (`detectd backup` takes both).
 */
export function loadServerSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const stored = readStoredSecret(dataDir);
  if (stored) return stored;
  fs.mkdirSync(dataDir, { recursive: true });
  const secret = crypto.randomBytes(32).toString('base64url');
  try {
    fs.writeFileSync(secretFile(dataDir), secret + '\n', { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readStoredSecret(dataDir)!;
    throw error;
  }
}
