import type { Response } from 'express';

/** Strings longer than this (base64 images in an answer) are turned into bytes one slice per event-loop turn. */
const SLICE_CHARACTERS = 768 * 1024;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Sends `body` as JSON with its Content-Length, like `response.json`, but a 12 MP visualization's
 * ~5 MB of base64 is escaped and copied in slices with a turn of the event loop between them:
 * one `JSON.stringify` and byte conversion of it would hold the loop for over 5 ms.
 */
export async function sendJson(response: Response, body: unknown): Promise<void> {
  const large: string[] = [];
  const text = JSON.stringify(body, (_key, value: unknown) => {
    if (typeof value !== 'string' || value.length <= SLICE_CHARACTERS) return value;
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
    for (let start = 0; start < value.length; start += SLICE_CHARACTERS) {
      await nextTurn();
      // Escaping is per character, so a slice's escaped form (without its quotes) is that part of the whole.
      chunks.push(Buffer.from(JSON.stringify(value.slice(start, start + SLICE_CHARACTERS)).slice(1, -1)));
    }
  }
  response.setHeader('Content-Length', chunks.reduce((total, chunk) => total + chunk.length, 0));
  for (const chunk of chunks) response.write(chunk);
  response.end();
}
