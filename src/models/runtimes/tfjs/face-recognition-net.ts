import type { NamedTensorMap } from '@tensorflow/tfjs-core';
import * as ort from 'onnxruntime-node';
import { tf } from './tfjs.js';
import type { RgbImage } from '../../../vision/image.js';
import type { RawOutput } from '../../types.js';
import type { WorkerModel } from '../threaded-detector-protocol.js';
import { OnnxGraph } from '../onnx/onnx-graph.js';
import { sessionOptions } from '../onnx/onnx-session-options.js';
import { faceApiInput, readFaceApiWeights } from './face-api-nets.js';
import { tfjsBackend } from './tfjs-backend.js';

/** What the describer's worker says of its model. */
export interface FaceRecognitionSummary {
  readonly name: string;
  readonly runtime: string;
  /** Values in one descriptor. */
  readonly size: number;
  /** Side of the square face image the network takes. */
  readonly inputSize: number;
}

/**
 * dlib's face recognition ResNet (29 conv layers, 128-d descriptors, 99.38 % on LFW) with the
 * weights `@vladmandic/face-api` ships in `model/face_recognition_model*` (decoded by TF.js, as
 * face-api decodes them), written out as an ONNX graph of the ops that package runs (its
 * FaceRecognitionNet, read, not copied) and run by ONNX Runtime, about ten times faster than
 * the same ops on TF.js's wasm backend (docs/performance.md) and the same numbers to 1e-6
 * (test/face-reference-nets.test.ts): the face image padded to a square (centred, black) and
 * resized to 150×150, minus the mean RGB (122.782, 117.001, 104.298), / 255 (on TF.js, as face-api
 * makes its input); a 7×7/2 conv, 3×3/2 max pool, residual blocks of 32, 64, 128 and 256 filters
 * (each conv followed by a per-channel scale, folded into it), global average, a 256→128 fully
 * connected layer.
 */

const INPUT_SIZE = 150;

/** The network's values while it is written out: the graph, the weights, and the current value's spatial size and channels. */
interface Building {
  readonly graph: OnnxGraph;
  readonly weights: NamedTensorMap;
}
interface Value {
  readonly name: string;
  readonly size: number;
  readonly channels: number;
}

/** A conv layer, its bias and its per-channel scale folded into one Conv (weights from TF.js's [h, w, in, out] to ONNX's [out, in, h, w]), then ReLU when `relu`. */
function convLayer({ graph, weights }: Building, x: Value, name: string, strides: 1 | 2, relu: boolean): Value {
  const filters = weights[`${name}/conv/filters`];
  const [height, width, inputs, outputs] = filters.shape;
  const values = filters.dataSync();
  const bias = weights[`${name}/conv/bias`].dataSync();
  const scale = weights[`${name}/scale/weights`].dataSync();
  const shift = weights[`${name}/scale/biases`].dataSync();
  const folded = new Float32Array(values.length);
  for (let out = 0; out < outputs; out++) {
    for (let input = 0; input < inputs; input++) {
      for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) folded[((out * inputs + input) * height + y) * width + x] = values[((y * width + x) * inputs + input) * outputs + out] * scale[out];
    }
  }
  const foldedBias = Float32Array.from(bias, (value, out) => value * scale[out] + shift[out]);
  // TF.js's 'same' at stride 1 (a 3×3 kernel: one pixel each side), 'valid' at stride 2.
  const pad = strides === 1 ? (height - 1) / 2 : 0;
  const conv = graph.node('Conv', [x.name, graph.weight([outputs, inputs, height, width], folded), graph.weight([outputs], foldedBias)], { kernel_shape: [height, width], strides: [strides, strides], pads: [pad, pad, pad, pad] });
  const size = strides === 1 ? x.size : Math.floor((x.size - height) / 2) + 1;
  return { name: relu ? graph.node('Relu', [conv]) : conv, size, channels: outputs };
}

function residual(building: Building, x: Value, name: string): Value {
  const out = convLayer(building, convLayer(building, x, `${name}/conv1`, 1, true), `${name}/conv2`, 1, false);
  return { ...out, name: building.graph.node('Relu', [building.graph.node('Add', [out.name, x.name])]) };
}

/** A residual block that halves the resolution: the shortcut is average-pooled and zero-padded to the new depth (the conv's output to the pool's size). */
function residualDown(building: Building, x: Value, name: string): Value {
  const { graph } = building;
  const out = convLayer(building, convLayer(building, x, `${name}/conv1`, 2, true), `${name}/conv2`, 1, false);
  const size = Math.floor(x.size / 2);
  let pooled = graph.node('AveragePool', [x.name], { kernel_shape: [2, 2], strides: [2, 2] });
  // ONNX's pads: the start of each axis (N, C, H, W), then its end.
  const grown = out.size === size ? out.name : graph.node('Pad', [out.name, graph.integers([0, 0, 0, 0, 0, 0, size - out.size, size - out.size])]);
  if (out.channels !== x.channels) pooled = graph.node('Pad', [pooled, graph.integers([0, 0, 0, 0, 0, out.channels - x.channels, 0, 0])]);
  return { name: graph.node('Relu', [graph.node('Add', [pooled, grown])]), size, channels: out.channels };
}

/** The ONNX model of the network with `weights`: input `chip` as faceApiInput makes it ([1, 150, 150, 3], normalised), output `descriptor` [1, size]. */
function describerGraph(weights: NamedTensorMap): { readonly model: Uint8Array; readonly size: number } {
  const building = { graph: new OnnxGraph(), weights };
  const { graph } = building;
  const chip = graph.node('Transpose', ['chip'], { perm: [0, 3, 1, 2] });
  let x = convLayer(building, { name: chip, size: INPUT_SIZE, channels: 3 }, 'conv32_down', 2, true);
  x = { ...x, name: graph.node('MaxPool', [x.name], { kernel_shape: [3, 3], strides: [2, 2] }), size: Math.floor((x.size - 3) / 2) + 1 };
  for (const name of ['conv32_1', 'conv32_2', 'conv32_3']) x = residual(building, x, name);
  x = residualDown(building, x, 'conv64_down');
  for (const name of ['conv64_1', 'conv64_2', 'conv64_3']) x = residual(building, x, name);
  x = residualDown(building, x, 'conv128_down');
  for (const name of ['conv128_1', 'conv128_2']) x = residual(building, x, name);
  x = residualDown(building, x, 'conv256_down');
  for (const name of ['conv256_1', 'conv256_2']) x = residual(building, x, name);
  x = residualDown(building, x, 'conv256_down_out');
  const fc = weights.fc;
  const [features, size] = fc.shape as [number, number];
  const pooled = graph.node('Flatten', [graph.node('GlobalAveragePool', [x.name])]);
  const descriptor = graph.node('MatMul', [pooled, graph.weight([features, size], fc.dataSync() as Float32Array)]);
  return { model: graph.model({ name: 'chip', dims: [1, INPUT_SIZE, INPUT_SIZE, 3] }, { value: descriptor, name: 'descriptor', dims: [1, size] }), size };
}

export async function loadWorkerModel(options: { logger?: (msg: string) => void }): Promise<WorkerModel<FaceRecognitionSummary>> {
  const log = options.logger ?? (() => {});
  // TF.js decodes face-api's quantized weights and makes the input as face-api does; the network runs on ONNX Runtime.
  await tfjsBackend(log);
  const { source, weights } = await readFaceApiWeights('face_recognition_model');
  if (!weights.fc) throw new Error(`${source}: no fully connected layer "fc"`);
  const { model, size } = describerGraph(weights);
  tf.dispose(Object.values(weights));
  // One run at a time (ONE_RUN_AT_A_TIME, face-describer.ts), on one core: the detector has the others.
  const session = await ort.InferenceSession.create(model, sessionOptions(1));
  log(`face recognition net loaded from ${source} as ONNX on onnxruntime (${INPUT_SIZE}×${INPUT_SIZE} → ${size})`);

  async function run(image: RgbImage): Promise<RawOutput> {
    const input = faceApiInput(image, INPUT_SIZE);
    const chip = new ort.Tensor('float32', input.dataSync() as Float32Array, [1, INPUT_SIZE, INPUT_SIZE, 3]);
    input.dispose();
    const { descriptor } = await session.run({ chip });
    return { tensors: [{ name: 'descriptor', data: descriptor.data as Float32Array, dims: [...descriptor.dims] }] };
  }

  return {
    summary: { name: 'dlib-face-recognition-resnet', runtime: 'onnxruntime', size, inputSize: INPUT_SIZE },
    run,
    dispose: () => void session.release(),
  };
}
