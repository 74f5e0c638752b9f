import crypto from 'node:crypto';
import fs from 'node:fs';

/** The SHA-256 of a file's bytes, in hex, read in chunks (a model or a database may be large). */
export async function fileSha256(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
