import crypto from 'node:crypto';

/** Keys look like `dtd_` + 43 base64url characters (256 random bits): easy to spot in a leaked file. */
const KEY_PREFIX = 'dtd_';
const KEY_PATTERN = /^dtd_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): string {
  return KEY_PREFIX + crypto.randomBytes(32).toString('base64url');
}

export function looksLikeApiKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate);
}

/** `text` (a URL path: CompreFace's static image URL carries its key) with every key-shaped word cut to its prefix, for a log or a status page. */
export function withoutApiKeys(text: string): string {
  return text.replace(/dtd_[A-Za-z0-9_-]{43}/g, `${KEY_PREFIX}…`);
}

/** Keyed hash stored in the database: a stolen database alone does not reveal or verify keys. */
export function hashApiKey(secret: string, key: string): string {
  return crypto.createHmac('sha256', secret).update(key).digest('hex');
}

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}

/**
 * The key from `Authorization: ApiKey <key>`, `Bearer <key>` or the bare key (as some Nvision
 * apps send it), or undefined. A bare value counts when it is one word that begins as a key does
 * (`dtd_`), so that a header in some other scheme is never mistaken for a key, and a key mistyped
 * by a character is answered as an unknown key rather than as a missing one.
 */
export function apiKeyFromAuthorization(header: string | undefined): string | undefined {
  const value = (header ?? '').trim();
  if (value.startsWith(KEY_PREFIX) && !/\s/.test(value)) return value;
  const match = /^(?:ApiKey|Bearer)\s+(\S+)$/i.exec(value);
  return match?.[1];
}
