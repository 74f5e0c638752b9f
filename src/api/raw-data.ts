import { ApiError } from './errors.js';

const DATA_URL_PREFIX = /^data:image\/[\w.+-]+;base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const WHITESPACE = /\s/;

/**
 * `raw_data` → image bytes. Standard base64 only (strict, so that a corrupt upload is reported
 * as such instead of being decoded into garbage); a data-URL prefix and line breaks (as the
 * `base64` command writes them) are accepted.
 */
export function decodeRawData(rawData: string): Buffer {
  let text = rawData.replace(DATA_URL_PREFIX, '');
  if (WHITESPACE.test(text)) text = text.replace(/\s+/g, '');
  if (text.length === 0) throw new ApiError('invalid_base64', 'raw_data is empty');
  if (!BASE64.test(text) || text.length % 4 === 1) {
    throw new ApiError('invalid_base64', 'raw_data is not standard base64 (A–Z, a–z, 0–9, "+", "/", "=" padding)');
  }
  return Buffer.from(text, 'base64');
}
