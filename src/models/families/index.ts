import type { OnnxFamily } from './family.js';
import { endToEnd } from './end-to-end.js';
import { ultralytics } from './ultralytics.js';
import { yolox } from './yolox.js';

/**
 * Every ONNX family the server can read. Adding a family means adding its module and one line
 * here. Order matters only for detection by output shape: the first match wins.
 */
export const ONNX_FAMILIES = [endToEnd, ultralytics, yolox] as const satisfies readonly OnnxFamily[];

export type { OnnxFamily };

export function familyByName(name: string): OnnxFamily | undefined {
  return ONNX_FAMILIES.find((family) => family.name === name);
}

export function familyForOutput(dims: readonly number[]): OnnxFamily | undefined {
  return ONNX_FAMILIES.find((family) => family.matchesOutput(dims));
}
