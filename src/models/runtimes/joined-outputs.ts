import type { RawOutput } from '../types.js';

/**
 * A model's outputs as the one tensor a family reads. A single output is itself; several outputs
 * of shape [1, N, k₁], [1, N, k₂], … (UltraFace: scores [1, N, 2], boxes [1, N, 4]) become one
 * [1, N, k₁ + k₂ + …] whose rows hold each output's row side by side, in output order. Outputs
 * of other shapes cannot be read together: the first is the model's answer, as for any single-output
 * family (some exports add auxiliary outputs after it).
 */
export function joinOutputs(outputs: readonly RawOutput[]): RawOutput {
  if (outputs.length === 1) return outputs[0];
  const rows = outputs[0].dims[1];
  if (!outputs.every((output) => output.dims.length === 3 && output.dims[0] === 1 && output.dims[1] === rows)) return outputs[0];
  const widths = outputs.map((output) => output.dims[2]);
  const rowWidth = widths.reduce((sum, width) => sum + width, 0);
  const data = new Float32Array(rows * rowWidth);
  let column = 0;
  for (const [index, output] of outputs.entries()) {
    const width = widths[index];
    for (let row = 0; row < rows; row++) data.set(output.data.subarray(row * width, (row + 1) * width), row * rowWidth + column);
    column += width;
  }
  return { data, dims: [1, rows, rowWidth] };
}
