import type { Response } from 'express';

/**
 * Strings longer than this (base64 images in an answer) are set apart and turned into bytes with a
 * turn of the event loop before each: many crops, each short of a slice, add up to megabytes.
 */
const APART_CHARACTERS = 64 * 1024;
/** The most characters turned into bytes in one event-loop turn. */
const SLICE_CHARACTERS = 768 * 1024;
/** A character JSON escapes, or one beyond ASCII: such a string is not its own JSON form in Latin-1 bytes. */
const NEEDS_ESCAPING = /["\\\u0000-\u001f\u007f-\uffff]/;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Sends `body` as JSON with its Content-Length, like `response.json`, but a 12 MP visualization's
 * or many crops' megabytes of base64 are escaped and copied in slices with a turn of the event loop between them:
 * one `JSON.stringify` and byte conversion of it would hold the loop longer than any other step
 * (docs/performance.md).
 */
export async function sendJson(response: Response, body: unknown): Promise<void> {
  const large: string[] = [];
  const text = JSON.stringify(body, (_key, value: unknown) => {
    if (typeof value !== 'string' || value.length <= APART_CHARACTERS) return value;
    large.push(value);
    return `\u0000${large.length - 1}\u0000`;
  });
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (large.length === 0) {
    // The text is already JSON: written as is (`response.json` would stringify it again and hash it for an ETag no POST answer uses).
    response.setHeader('Content-Length', Buffer.byteLength(text));
    response.end(text);
    return;
  }
  // Odd parts are indices into `large`, even parts the JSON around them.
  const parts = text.split(/\\u0000(\d+)\\u0000/);
  const chunks: Buffer[] = [];
  for (let index = 0; index < parts.length; index++) {
    if (index % 2 === 0) {
      chunks.push(Buffer.from(parts[index]));
      continue;
    }
    const value = large[Number(parts[index])];
    for (let start = 0, end = 0; start < value.length; start = end) {
      await nextTurn();
      end = Math.min(value.length, start + SLICE_CHARACTERS);
      // Never between the two halves of a surrogate pair, which would each be escaped alone.
      if (end < value.length && isHighSurrogate(value.charCodeAt(end - 1))) end--;
      const slice = value.slice(start, end);
      // Base64 (every large string we send) is printable ASCII: its JSON form is itself, copied as
      // bytes (several times faster than escaping it and encoding it as UTF-8). Anything else is
      // escaped, per character, so a slice's escaped form is that part of the whole.
      chunks.push(NEEDS_ESCAPING.test(slice) ? Buffer.from(JSON.stringify(slice).slice(1, -1)) : Buffer.from(slice, 'latin1'));
    }
  }
  response.setHeader('Content-Length', chunks.reduce((total, chunk) => total + chunk.length, 0));
  for (const chunk of chunks) response.write(chunk);
  response.end();
}
