/** Mean and largest absolute difference of two equally long arrays of values (pixels, tensors). */
export function valueDifferences(actual: ArrayLike<number>, expected: ArrayLike<number>): { mean: number; max: number } {
  if (actual.length !== expected.length) throw new RangeError(`${actual.length} values against ${expected.length}`);
  let sum = 0;
  let max = 0;
  for (let index = 0; index < actual.length; index++) {
    const delta = Math.abs(actual[index] - expected[index]);
    sum += delta;
    max = Math.max(max, delta);
  }
  return { mean: sum / actual.length, max };
}
