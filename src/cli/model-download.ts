import crypto from 'node:crypto';
import fs from 'node:fs';
import fsPromises from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** One exact file to download: where from, and the bytes it must be. */
export interface PinnedFile {
  /** Tried in order; each serves the same bytes. */
  readonly urls: readonly string[];
  readonly sha256: string;
  readonly bytes: number;
}

/** What a download tells the person waiting for it. */
export interface DownloadEvents {
  /** `received` of `total` bytes are in. */
  progress(received: number, total: number): void;
  /** An attempt failed and another follows: why, and whether it resumes from the bytes already in. */
  retrying(reason: string, delayMs: number, resumeFrom: number): void;
}

/** Why a download did not produce the file; nothing was kept. */
export class DownloadFailed extends Error {}

/** Waits before each further attempt at one URL: a dropped connection or a busy server often recovers within seconds. */
const RETRY_DELAYS_MS = [500, 1000, 2000];
/** A response that sends nothing for this long is given up (and retried). */
const STALL_MS = 30_000;

/** A failure worth another attempt at the same URL (the connection dropped, the server was busy), or not (it answered that it has no such file). */
class AttemptFailed extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

/** The sha256 of a file, hex. */
export const sha256Of = async (file: string) => {
  const hash = crypto.createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
};

const sizeOf = (file: string) => fsPromises.stat(file).then((stats) => stats.size, () => 0);

/**
 * One request for the bytes of `url` from `from` on (a Range request when resuming), appended to
 * `partial`; resolves when the response ended. A server that ignores the range (200) starts the
 * file over. More bytes than expected is a wrong file, not worth retrying.
 */
async function attempt(url: string, partial: string, from: number, file: PinnedFile, events: DownloadEvents): Promise<void> {
  const stall = new AbortController();
  let timer = setTimeout(() => stall.abort(), STALL_MS);
  const alive = () => {
    clearTimeout(timer);
    timer = setTimeout(() => stall.abort(), STALL_MS);
  };
  try {
    let response: Response;
    try {
      response = await fetch(url, { headers: from > 0 ? { Range: `bytes=${from}-` } : {}, signal: stall.signal, redirect: 'follow' });
    } catch (error) {
      throw new AttemptFailed(`cannot reach ${url}: ${causeOf(error)}`, true);
    }
    if (response.status !== 200 && response.status !== 206) {
      await response.body?.cancel();
      throw new AttemptFailed(`${url} answered ${response.status} ${response.statusText}`, response.status >= 500 || response.status === 408 || response.status === 429);
    }
    const resumed = response.status === 206 && response.headers.get('content-range')?.startsWith(`bytes ${from}-`) === true;
    const length = Number(response.headers.get('content-length') ?? NaN);
    if (!resumed && length !== file.bytes && Number.isInteger(length)) {
      await response.body?.cancel();
      throw new AttemptFailed(`${url} sent a file of ${length} bytes, not the ${file.bytes} of the pinned file: refused`, false);
    }
    let received = resumed ? from : 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        alive();
        received += chunk.length;
        if (received > file.bytes) {
          done(new AttemptFailed(`${url} sent more than the ${file.bytes} bytes of the pinned file: refused`, false));
          return;
        }
        events.progress(received, file.bytes);
        done(null, chunk);
      },
    });
    try {
      await pipeline(Readable.fromWeb(response.body! as ReadableStream), count, fs.createWriteStream(partial, { flags: resumed ? 'a' : 'w' }));
    } catch (error) {
      if (error instanceof AttemptFailed) throw error;
      throw new AttemptFailed(`the connection to ${url} was lost after ${received} of ${file.bytes} bytes (${causeOf(error)})`, true);
    }
    if (received < file.bytes) throw new AttemptFailed(`${url} ended after ${received} of ${file.bytes} bytes`, true);
  } finally {
    clearTimeout(timer);
  }
}

/** The innermost reason of a fetch or stream failure (undici wraps the socket's in `cause`). */
function causeOf(error: unknown): string {
  let inner = error as Error & { cause?: unknown };
  while (inner.cause instanceof Error) inner = inner.cause as Error & { cause?: unknown };
  return inner.message;
}

/**
 * Downloads `file` to `destination` so that nothing but the verified file ever has that name: the
 * bytes go to `destination.<pid>.download` (an extension no runtime serves), are retried and
 * resumed (HTTP Range) when a connection drops, and are checked against the pinned size and sha256
 * before a rename puts them in place. A wrong file, or one no URL delivers, leaves nothing behind
 * and throws DownloadFailed with every URL's reason.
 */
export async function downloadPinned(file: PinnedFile, destination: string, events: DownloadEvents): Promise<{ readonly url: string }> {
  const partial = `${destination}.${process.pid}.download`;
  const reasons: string[] = [];
  try {
    for (const url of file.urls) {
      await fsPromises.rm(partial, { force: true });
      for (let retry = 0; ; retry++) {
        try {
          await attempt(url, partial, await sizeOf(partial), file, events);
          break;
        } catch (error) {
          if (!(error instanceof AttemptFailed)) throw error;
          const delayMs = RETRY_DELAYS_MS[retry];
          if (!error.retry || delayMs === undefined) {
            reasons.push(error.message);
            break;
          }
          events.retrying(error.message, delayMs, await sizeOf(partial));
          await sleep(delayMs);
        }
      }
      if ((await sizeOf(partial)) !== file.bytes) continue;
      const sha256 = await sha256Of(partial);
      if (sha256 === file.sha256) {
        await fsPromises.rename(partial, destination);
        return { url };
      }
      reasons.push(`${url} sent a file whose sha256 is ${sha256}, not the pinned ${file.sha256}: refused`);
    }
    throw new DownloadFailed(reasons.join('; '));
  } finally {
    await fsPromises.rm(partial, { force: true });
  }
}
