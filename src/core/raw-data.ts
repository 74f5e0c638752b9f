import { DetectdError } from './errors.js';

const DATA_URL_PREFIX = /^data:image\/[\w.+-]+;base64,/i;
const WHITESPACE = /\s/;

/**
 * Decodes when every character is base64 (standard or URL-safe), else undefined. Node's decoder
 * silently skips foreign characters, and any skipped character makes the output shorter than
 * the length the text implies — so comparing lengths validates without a regex pass over
 * megabytes of text.
 */
function decodeStrict(text: string): Buffer | undefined {
  if (text.length % 4 === 1) return undefined;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === Math.floor(((text.length - padding) * 3) / 4) ? bytes : undefined;
}

/**
 * `raw_data` → image bytes. Strict, so that a corrupt upload is reported as such instead of
 * being decoded into garbage; a data-URL prefix and line breaks (as the `base64` command writes
 * them) are accepted.
 */
export function decodeRawData(rawData: string): Buffer {
  const text = rawData.replace(DATA_URL_PREFIX, '');
  if (text.trim().length === 0) throw new DetectdError('invalid_base64', 'raw_data is empty');
  const bytes = decodeStrict(text) ?? (WHITESPACE.test(text) ? decodeStrict(text.replace(/\s+/g, '')) : undefined);
  if (!bytes) throw new DetectdError('invalid_base64', 'raw_data is not base64 (A–Z, a–z, 0–9, "+" and "/" or "-" and "_", "=" padding)');
  return bytes;
}
