import { ultraface } from '../families/ultraface.js';
import type { FileDetector, FileRuntime, InferenceSettings } from '../model-repository.js';
import { readOnnxFile } from '../onnx/onnx-file.js';
import { loadOnnxDetector } from './onnx-detector.js';
import { loadOnnxFaceDetector } from './onnx-face-detector.js';

/**
 * One ONNX file, loaded by what it is: a face detector when its outputs are UltraFace's (found in
 * the same places as the object detectors, no setting needed), else an object detector.
 */
async function loadOnnxModel(modelPath: string, defaults: InferenceSettings): Promise<FileDetector> {
  // An unreadable file is the object loader's to refuse, with ONNX Runtime's words.
  const outputs = await readOnnxFile(modelPath).then((summary) => summary.outputs, () => []);
  return ultraface.matchesOutputs(outputs) ? loadOnnxFaceDetector(modelPath, defaults) : loadOnnxDetector(modelPath, defaults);
}

export const onnxRuntime: FileRuntime = { name: 'onnxruntime', extensions: ['.onnx'], load: loadOnnxModel };
