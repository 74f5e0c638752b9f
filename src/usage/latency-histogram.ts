/**
 * Latencies are counted in log-scale buckets (four per doubling, ≈19 % wide), so per-minute
 * counters from any number of replicas add up and p50/p95 come out of the sums. Bucket i holds
 * latencies in (2^((i-1)/4), 2^(i/4)] ms; the last one holds everything slower.
 */
const LATENCY_BUCKETS = 64;

export function latencyBucket(ms: number): number {
  if (!(ms > 1)) return 0;
  return Math.min(LATENCY_BUCKETS - 1, Math.ceil(4 * Math.log2(ms)));
}

export function bucketUpperBoundMs(bucket: number): number {
  return 2 ** (bucket / 4);
}

/** The q-quantile (0–1) as its bucket's upper bound, or null without samples. */
export function quantileMs(countsByBucket: ReadonlyMap<number, number>, q: number): number | null {
  const buckets = [...countsByBucket.keys()].sort((a, b) => a - b);
  const total = buckets.reduce((sum, bucket) => sum + countsByBucket.get(bucket)!, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const bucket of buckets) {
    seen += countsByBucket.get(bucket)!;
    if (seen >= rank) return bucketUpperBoundMs(bucket);
  }
  return bucketUpperBoundMs(buckets[buckets.length - 1]);
}
