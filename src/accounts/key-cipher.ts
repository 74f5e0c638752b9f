import crypto from 'node:crypto';

const FORMAT = 'v1';
const IV_BYTES = 12;

/**
 * Encrypts secrets at rest so their owner can read them again (API keys; face descriptors, with
 * their own `purpose`): AES-256-GCM under a key derived from the server secret with HKDF-SHA256,
 * one key per purpose. Each ciphertext is bound to its row id (associated data), so a ciphertext
 * copied onto another row does not decrypt.
 */
export class KeyCipher {
  readonly #key: Buffer;

  constructor(serverSecret: string, purpose = 'api-key-encryption/v1') {
    this.#key = Buffer.from(crypto.hkdfSync('sha256', serverSecret, 'detectd', purpose, 32));
  }

  /** `v1.<iv>.<ciphertext>.<tag>`, base64url parts. */
  encrypt(plaintext: string, rowId: string): string {
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(rowId));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, iv, body, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  /** The plaintext, or an error when the ciphertext was altered, moved or made under another secret. */
  decrypt(stored: string, rowId: string): string {
    const [format, iv, body, tag] = stored.split('.');
    if (format !== FORMAT || !iv || !body || !tag) throw new Error('unrecognised ciphertext');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(rowId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
