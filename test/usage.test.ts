import { expect } from 'chai';
import { pino } from 'pino';
import { bucketUpperBoundMs, latencyBucket, quantileMs } from '../src/usage/latency-histogram.js';
import { UsageRecorder } from '../src/usage/usage-recorder.js';
import { UsageStore } from '../src/usage/usage-store.js';
import { type Database, openDatabase } from '../src/store/database.js';
import type { ScratchStore } from '../scripts/lib/local-server.js';
import { databaseSettingsOf, describeEachEngine } from './support/engines.js';
import { SCHEMA } from '../src/features/index.js';

const SERVICE = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';

describe('latency histogram', () => {
  it('puts a latency in bucket i when 2^((i-1)/4) < ms ≤ 2^(i/4), ≤ 1 ms in bucket 0 and everything slower than 2^15.5 ms in the last', () => {
    // Exact boundaries: a bound itself belongs to the bucket below it.
    expect([0, 0.2, 1].map(latencyBucket)).to.deep.equal([0, 0, 0]);
    expect([1.001, 2, 2.001, 16, 1024, 1025].map(latencyBucket)).to.deep.equal([1, 4, 5, 16, 40, 41]);
    expect([1, 4, 16, 40].map(bucketUpperBoundMs)).to.deep.equal([2 ** 0.25, 2, 16, 1024]);
    // The last bucket holds everything slower than the one before it.
    expect([46_000, 47_000, 1e6, 1e9].map(latencyBucket)).to.deep.equal([62, 63, 63, 63]);
    // Every latency between: inside its bucket's bounds, and the buckets are 2^(1/4) ≈ 19 % wide.
    for (let ms = 1.01; ms < 46_000; ms *= 1.07) {
      const bucket = latencyBucket(ms);
      expect(bucketUpperBoundMs(bucket - 1), `${ms} ms, bucket ${bucket}`).to.be.below(ms);
      expect(bucketUpperBoundMs(bucket), `${ms} ms, bucket ${bucket}`).to.be.at.least(ms);
      expect(bucketUpperBoundMs(bucket) / bucketUpperBoundMs(bucket - 1)).to.be.closeTo(2 ** 0.25, 1e-12);
    }
  });

  it('reads quantiles off the counts', () => {
    const counts = new Map([
      [latencyBucket(10), 90],
      [latencyBucket(100), 10],
    ]);
    expect(quantileMs(counts, 0.5)).to.equal(bucketUpperBoundMs(latencyBucket(10)));
    expect(quantileMs(counts, 0.95)).to.equal(bucketUpperBoundMs(latencyBucket(100)));
    expect(quantileMs(new Map(), 0.5)).to.equal(null);
  });
});

describeEachEngine('usage counters in the store', (engine) => {
  let store: ScratchStore;
  let db: Database;
  let usage: UsageStore;

  beforeEach(async () => {
    store = await engine.scratch();
    db = await openDatabase(databaseSettingsOf(store), SCHEMA);
    usage = new UsageStore(db);
  });
  afterEach(async () => {
    await db.destroy();
    await store.remove();
  });

  it('adds recorded calls up across flushes and recorders (replicas), per service', async () => {
    const now = Date.now();
    const recorders = [new UsageRecorder(usage, pino({ enabled: false })), new UsageRecorder(usage, pino({ enabled: false }))];
    for (const [index, recorder] of recorders.entries()) {
      for (let call = 0; call < 10; call++) recorder.record({ serviceId: SERVICE, at: now, latencyMs: 20 + index, images: 1, detections: 3 });
      recorder.record({ serviceId: SERVICE, at: now, latencyMs: 400, images: 0, detections: 0, errorCode: 'invalid_image' });
      recorder.record({ serviceId: OTHER, at: now, latencyMs: 5, images: 1, detections: 1 });
      await recorder.flush();
      recorder.record({ serviceId: SERVICE, at: now, latencyMs: 30, images: 0, detections: 0, errorCode: 'invalid_json' });
      await recorder.stop();
    }
    const summary = await usage.summary(SERVICE, 'hour', new Date(now));
    expect(summary).to.include({ requests: 24, images: 20, detections: 60, errors: 4 });
    expect(summary.errorsByCode).to.deep.equal({ invalid_image: 2, invalid_json: 2 });
    expect(summary.p50Ms).to.be.within(20, 25);
    expect(summary.p95Ms).to.be.within(400, 480);
    expect(summary.series).to.have.length(60);
    expect(summary.series[59]).to.deep.include({ requests: 24, errors: 4 });
    expect((await usage.summary(OTHER, 'hour', new Date(now))).requests).to.equal(2);
  });

  it('reports each window over its own span, in hourly and daily bars', async () => {
    const now = new Date('2026-03-31T12:30:00Z');
    const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString().slice(0, 16);
    await usage.add([
      { serviceId: SERVICE, minute: minutesAgo(5), counter: 'requests', value: 1 },
      { serviceId: SERVICE, minute: minutesAgo(120), counter: 'requests', value: 2 },
      { serviceId: SERVICE, minute: minutesAgo(3 * 24 * 60), counter: 'requests', value: 4 },
      { serviceId: SERVICE, minute: minutesAgo(3 * 24 * 60), counter: 'error:unauthorized', value: 1 },
      { serviceId: SERVICE, minute: minutesAgo(40 * 24 * 60), counter: 'requests', value: 8 },
    ]);
    expect((await usage.summary(SERVICE, 'hour', now)).requests).to.equal(1);
    const day = await usage.summary(SERVICE, 'day', now);
    expect(day.requests).to.equal(3);
    expect(day.series.map((bar) => bar.bin)).to.include('2026-03-31T10').and.include('2026-03-31T12');
    expect(day.series.find((bar) => bar.bin === '2026-03-31T10')?.requests).to.equal(2);
    const month = await usage.summary(SERVICE, 'month', now);
    expect(month).to.include({ requests: 7, errors: 1 });
    expect(month.series.find((bar) => bar.bin === '2026-03-28')).to.deep.equal({ bin: '2026-03-28', requests: 4, errors: 1 });
  });
});
