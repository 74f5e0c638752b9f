/**
 * Decoded pixels and encoded JPEGs are written into buffers kept here for the next image, not into new ones. A new
 * 36 MB buffer for a 12 MP photo costs more than the decode's own work: the kernel faults and
 * zeroes every page on first touch (docs/performance.md).
 */

/** Free buffers kept at most, and their bytes together: a few images' worth, whatever their size. */
const MAX_FREE_BUFFERS = 4;
const MAX_FREE_BYTES = 160 * 2 ** 20;

const free: Buffer[] = [];

/** Pixels in a kept buffer; `release` hands the buffer back once no one reads them any more. */
export interface PixelBuffer {
  /** Exactly the bytes asked for (a view of the kept buffer). */
  readonly data: Buffer;
  release(): void;
}

/**
 * `bytes` of uninitialised memory: the smallest free buffer that holds them and is at most twice
 * as large (a small image does not hold on to a large buffer), or a new one.
 */
export function takePixelBuffer(bytes: number): PixelBuffer {
  let best = -1;
  for (let index = 0; index < free.length; index++) {
    const { length } = free[index];
    if (length >= bytes && length <= 2 * bytes && (best < 0 || length < free[best].length)) best = index;
  }
  // Shared memory: an inference worker letterboxes the pixels where they are, without a copy.
  const whole = best >= 0 ? free.splice(best, 1)[0] : Buffer.from(new SharedArrayBuffer(bytes));
  let released = false;
  return {
    data: whole.subarray(0, bytes),
    release() {
      if (released) return;
      released = true;
      keep(whole);
    },
  };
}

/** Keeps `whole` for reuse, dropping the smallest kept buffers past the bounds. */
function keep(whole: Buffer): void {
  free.push(whole);
  free.sort((a, b) => b.length - a.length);
  let bytes = free.reduce((total, buffer) => total + buffer.length, 0);
  while (free.length > MAX_FREE_BUFFERS || (bytes > MAX_FREE_BYTES && free.length > 0)) bytes -= free.pop()!.length;
}

/** Lets go of every kept buffer, for the garbage collector: the server is idle (core/idle-collector.ts). */
export function dropPixelBuffers(): void {
  free.length = 0;
}
