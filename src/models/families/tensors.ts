import type { OutputTensor, RawOutput, TensorDeclaration } from '../types.js';

/** The output named `name`; throws when the model has none. */
export function tensorNamed(output: RawOutput, name: string): OutputTensor {
  const tensor = output.tensors.find((candidate) => candidate.name === name);
  if (!tensor) throw new Error(`the model has no output "${name}" (it has ${output.tensors.map((t) => t.name).join(', ')})`);
  return tensor;
}

/** Whether the declared outputs are exactly these names, in any order. */
export function hasOutputs(outputs: readonly TensorDeclaration[], names: readonly string[]): boolean {
  return outputs.length === names.length && names.every((name) => outputs.some((output) => output.name === name));
}
