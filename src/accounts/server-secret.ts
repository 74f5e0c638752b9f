import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Where a single embedded instance keeps its generated secret: beside its database, readable by the owner only. */
export const secretFile = (dataDir: string) => path.join(dataDir, 'secret.key');

/**
 * A secret file that is there but cannot be used: unreadable, a folder, a link to nothing, empty.
 * Never replaced by a new secret: that would make every stored API key unusable.
 */
export class ServerSecretUnreadable extends Error {}

/** Why the file at `file` cannot be read, in words, from the read's error. */
function unreadable(file: string, error: NodeJS.ErrnoException): ServerSecretUnreadable {
  const reasons: Record<string, () => string> = {
    EACCES: () => 'this user may not read it',
    EPERM: () => 'this user may not read it',
    EISDIR: () => 'it is a folder',
    ENOENT: () => `it is a link to ${fs.readlinkSync(file, 'utf8')}, which does not exist`,
    EIO: () => 'the disk failed to read it',
  };
  const reason = reasons[error.code ?? '']?.() ?? error.message;
  return new ServerSecretUnreadable(
    `the server secret file ${file} cannot be read (${error.code}: ${reason}): make it a file the user running detectd can read, ` +
      'restored from a backup if it is lost (every API key of the database needs it), or set DETECTD_SECRET',
  );
}

/** The secret kept in the data folder, or undefined when there is none; ServerSecretUnreadable when one is there but cannot be used. */
export function readStoredSecret(dataDir: string): string | undefined {
  const file = secretFile(dataDir);
  let secret;
  try {
    secret = fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    // No file at all; a link whose target is missing is there, and unreadable.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !fs.lstatSync(file, { throwIfNoEntry: false })) return undefined;
    throw unreadable(file, error as NodeJS.ErrnoException);
  }
  if (secret === '') {
    throw new ServerSecretUnreadable(
      `the server secret file ${file} is empty: restore it from a backup (every API key of the database needs it), or set DETECTD_SECRET; ` +
        'on a server that never had an account, delete it and a new one is made',
    );
  }
  return secret;
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
  if (stored !== undefined) return stored;
  fs.mkdirSync(dataDir, { recursive: true });
  const secret = crypto.randomBytes(32).toString('base64url');
  // Written whole beside it, then linked in place: another process never reads it half-written,
  // and a crash never leaves an empty one.
  const written = `${secretFile(dataDir)}.new-${process.pid}`;
  fs.writeFileSync(written, secret + '\n', { mode: 0o600 });
  try {
    fs.linkSync(written, secretFile(dataDir));
    return secret;
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    // Another process made it first: use theirs.
    if (code === 'EEXIST') return readStoredSecret(dataDir)!;
    // A file system without hard links (vfat, some network shares): created and written in one call instead.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') {
      fs.writeFileSync(secretFile(dataDir), secret + '\n', { mode: 0o600, flag: 'wx' });
      return secret;
    }
    throw error;
  } finally {
    fs.rmSync(written, { force: true });
  }
}
