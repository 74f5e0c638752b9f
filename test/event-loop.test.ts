import http from 'node:http';
import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { expect } from 'chai';
import sharp from 'sharp';
import { dogJpeg } from './support/images.js';
import { threadCpuMs } from './support/thread-cpu.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/**
 * The most CPU time the main thread may run between two ticks of a 1 ms timer during one request,
 * of any size or option. The work kept on the loop is sized to hold it about 5 ms at most (issue 20),
 * but the same work takes more CPU time on a loaded machine (cores and caches shared): the bound is
 * one that load does not reach and that any large synchronous step (a whole-image copy, one
 * JSON.stringify or JSON.parse of megabytes, a decode on the loop) exceeds. docs/performance.md's
 * "Limits and behaviour under load" has the figures.
 */
const MAX_HELD_MS = 15;
const TICK_MS = 1;

/** Milliseconds of the span [from, to] that `pauses` cover. */
function overlapMs(pauses: readonly PerformanceEntry[], from: number, to: number): number {
  return pauses.reduce((total, pause) => total + Math.max(0, Math.min(to, pause.startTime + pause.duration) - Math.max(from, pause.startTime)), 0);
}

interface TickCount {
  /** For each tick of a 1 ms timer, the CPU time the main thread ran since the tick before, less garbage collection. */
  readonly heldMs: number[];
  /** Garbage collections meanwhile (V8's pauses, counted apart: they are not one request's code). */
  readonly collections: PerformanceEntry[];
}

/**
 * Counts the ticks of a 1 ms timer while `work` runs. Between two ticks the loop ran whatever
 * callbacks were due; the main thread's CPU time over that span, less garbage-collection pauses,
 * is the longest any of them held it. CPU time, not the tick's lateness: on a loaded machine a
 * tick comes late because the thread waited for a core, and that says nothing of our code.
 */
async function countTicks(work: () => Promise<void>): Promise<TickCount> {
  const collections: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => collections.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  const spans: { from: number; to: number; cpuMs: number }[] = [];
  let last = performance.now();
  let lastCpu = threadCpuMs();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = threadCpuMs();
    spans.push({ from: last, to: now, cpuMs: cpu - lastCpu });
    last = now;
    lastCpu = cpu;
  }, TICK_MS);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  // The observer delivers entries a turn later.
  await new Promise((resolve) => setImmediate(resolve));
  observer.disconnect();
  const heldMs = spans.map(({ from, to, cpuMs }) => Math.max(0, cpuMs - overlapMs(collections, from, to)));
  return { heldMs, collections };
}

describe('one request never holds the event loop long (real server, real model; the main thread\'s CPU time between ticks counted)', () => {
  let server: TestServer;
  let twelveMegapixel: Buffer;
  const agent = new http.Agent({ keepAlive: true });

  before(async () => {
    server = await startTestServer({ DETECTD_MAX_BODY_BYTES: String(64 * 2 ** 20) });
    twelveMegapixel = await sharp(dogJpeg()).resize(4032, 3024, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
  });
  after(async () => {
    agent.destroy();
    await server?.close();
  });

  /** Posts the body; resolves with the status and how many bytes the answer had (crops and a visualization make it large). */
  function post(contentType: string, body: Buffer): Promise<{ status: number; bytes: number }> {
    return new Promise((resolve, reject) => {
      const headers = { Authorization: `ApiKey ${server.apiKey}`, 'Content-Type': contentType };
      const request = http.request(`${server.url}/api/v1/object-detection`, { method: 'POST', agent, headers }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }));
      });
      request.on('error', reject);
      request.end(body);
    });
  }

  /** A request, its body built beforehand: the client's own work is not on the loop while ticks are counted. */
  async function caller(form: 'base64 JSON' | 'multipart form', parameter: string | undefined): Promise<() => Promise<{ status: number; bytes: number }>> {
    if (form === 'base64 JSON') {
      const body = Buffer.from(JSON.stringify({ raw_data: twelveMegapixel.toString('base64'), configurations: parameter ? [{ parameter, value: 'true' }] : [] }));
      return () => post('application/json', body);
    }
    const multipart = new FormData();
    if (parameter) multipart.append(parameter, 'true');
    multipart.append('image', new Blob([new Uint8Array(twelveMegapixel)], { type: 'image/jpeg' }), 'photo.jpg');
    const encoded = new Request('http://localhost/', { method: 'POST', body: multipart });
    const body = Buffer.from(await encoded.arrayBuffer());
    return () => post(encoded.headers.get('content-type')!, body);
  }

  // Code that holds the loop holds it in every request; a collection, or a core shared with
  // another process, lands on some ticks of some requests. So each request is counted on its own,
  // and the best of them must have held no tick past the bound.
  const REQUESTS = 5;
  for (const parameter of [undefined, 'OutputCroppedImage', 'OutputVisualizedImage']) {
    for (const form of ['base64 JSON', 'multipart form'] as const) {
      it(`a 12 MP JPEG as ${form}${parameter ? `, ${parameter}` : ''}`, async () => {
        const send = await caller(form, parameter);
        // A crop or the visualized 12 MP image is hundreds of KB of base64; the objects alone are not.
        const call = async () => {
          const { status, bytes } = await send();
          expect(status).to.equal(200);
          expect(bytes > 100_000, `${bytes} bytes answered`).to.equal(parameter !== undefined);
        };
        // Warm: the first calls run before the JIT has optimised the loops.
        for (let i = 0; i < 2; i++) await call();
        const counts: TickCount[] = [];
        for (let i = 0; i < REQUESTS; i++) counts.push(await countTicks(call));
        const longest = counts.map(({ heldMs }) => Math.max(...heldMs));
        const described = counts.map(({ heldMs, collections }, i) => `${heldMs.length} ticks, longest ${longest[i].toFixed(1)} ms, collections ${collections.map((pause) => pause.duration.toFixed(0)).join('/') || 'none'}`);
        for (const { heldMs } of counts) expect(heldMs.length, 'ticks counted during a request').to.be.at.least(10);
        expect(Math.min(...longest), `longest hold in each request: ${described.join('; ')}`).to.be.at.most(MAX_HELD_MS);
      });
    }
  }
});
