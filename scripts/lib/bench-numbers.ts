import { InvalidArgumentError } from 'commander';

/** Commander parser for options such as `--seconds 8`. */
export function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (!(parsed > 0)) throw new InvalidArgumentError('expected a positive number');
  return parsed;
}

/** The `p`-th percentile (0–100) of `values`, nearest-rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
