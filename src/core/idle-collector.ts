import v8 from 'node:v8';
import vm from 'node:vm';
import { dropPixelBuffers } from '../vision/pixel-buffers.js';
import type { Logger } from 'pino';

/** V8's full collection, exposed at run time (as `--expose-gc` would at start). */
function fullCollection(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/**
 * Collects garbage once the server has been idle for a while after a call. Image buffers and
 * base64 strings are large and live in V8's heap or behind it: under load V8 collects them often,
 * but at rest it may not for hours, so an idle server would hold whatever its last images left.
 * One full collection when calls stop returns that memory (tens of ms, never under load), the
 * decode and encode buffers kept for the next image included, and says so in the log: how much of
 * the heap it freed.
 */
export class IdleCollector {
  #timer: NodeJS.Timeout | undefined;
  readonly #collect: () => void;

  constructor(
    private readonly idleMs: number,
    private readonly logger: Pick<Logger, 'info'>,
  ) {
    this.#collect = fullCollection();
  }

  /** A call ended: collect once no other has ended for `idleMs`. */
  callEnded(): void {
    if (this.#timer) {
      this.#timer.refresh();
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#collectAndLog();
    }, this.idleMs).unref();
  }

  #collectAndLog(): void {
    const heapBefore = v8.getHeapStatistics().used_heap_size;
    const started = performance.now();
    dropPixelBuffers();
    this.#collect();
    const durationMs = Math.round(performance.now() - started);
    const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
    this.logger.info({ heap_used_mb_before: mb(heapBefore), heap_used_mb_after: mb(v8.getHeapStatistics().used_heap_size), duration_ms: durationMs }, 'idle collection');
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
