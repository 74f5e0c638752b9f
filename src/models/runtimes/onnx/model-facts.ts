import path from 'node:path';
import { COCO_LABELS, parentOf } from '../../coco-categories.js';
import { type ModelDescription, readModelDescription } from '../../model-description.js';
import { sidecarPath } from '../../model-repository.js';
import type { InputSize } from '../../../vision/letterbox.js';
import { readOnnxFile } from './onnx-file.js';
import { MetadataError, readUltralyticsMetadata, type UltralyticsMetadata } from './ultralytics-metadata.js';

/** The only Ultralytics task whose outputs are boxes with classes. */
const DETECT_TASK = 'detect';
const DEFAULT_INPUT_SIZE = 640;

/** What is known about an ONNX model before it runs: its configuration file and its own metadata. */
export interface ModelFacts {
  readonly description: ModelDescription;
  readonly metadata: UltralyticsMetadata;
}

/** A reason to refuse the model; the loader names the file. */
export class Refusal extends Error {}

/**
 * Reads the model's configuration file and the metadata inside the model file, and refuses a
 * model whose metadata says it is not a detector (its outputs would be read as garbage boxes).
 */
export async function readModelFacts(modelPath: string): Promise<ModelFacts> {
  const description = await readModelDescription(modelPath).catch((error: Error) => {
    throw new Refusal(error.message);
  });
  let metadata: UltralyticsMetadata;
  try {
    metadata = readUltralyticsMetadata((await readOnnxFile(modelPath)).metadata);
  } catch (error) {
    if (error instanceof MetadataError) throw new Refusal(`its Ultralytics metadata is unreadable: ${error.message}`);
    throw new Refusal((error as Error).message);
  }
  if (metadata.task !== undefined && metadata.task !== DETECT_TASK) {
    throw new Refusal(
      `its metadata says task "${metadata.task}", and detectd serves detectors only (task "${DETECT_TASK}"); ` +
        `export a detection model (e.g. yolo11n.pt, not yolo11n-seg.pt / -pose / -obb / -cls)`,
    );
  }
  return { description, metadata };
}

/**
 * The input's width and height: fixed by the model's input shape [N, 3, H, W] when it declares them
 * (the configuration and metadata must then agree with it), else the configuration's `inputSize` (a
 * square), else the metadata's `imgsz` ([H, W]), else 640 × 640. Each must be a multiple of the
 * metadata's stride.
 */
export function chooseInputSize(declared: readonly unknown[], { description, metadata }: ModelFacts): InputSize {
  const [height, width] = [declared[2], declared[3]];
  let size: InputSize;
  if (typeof width === 'number' && typeof height === 'number') {
    if (description.inputSize !== undefined && (description.inputSize !== width || description.inputSize !== height)) {
      throw new Refusal(`its configuration says inputSize ${description.inputSize}, but the model's input is ${width}×${height}`);
    }
    if (metadata.imgsz && (metadata.imgsz[0] !== height || metadata.imgsz[1] !== width)) {
      throw new Refusal(`its metadata says imgsz [${metadata.imgsz.join(', ')}], but the model's input is ${width}×${height}`);
    }
    size = { width, height };
  } else if (description.inputSize !== undefined) {
    size = { width: description.inputSize, height: description.inputSize };
  } else if (metadata.imgsz) {
    size = { width: metadata.imgsz[1], height: metadata.imgsz[0] };
  } else {
    size = { width: DEFAULT_INPUT_SIZE, height: DEFAULT_INPUT_SIZE };
  }
  const { stride } = metadata;
  if (stride !== undefined && (size.width % stride !== 0 || size.height % stride !== 0)) {
    throw new Refusal(`its input ${size.width}×${size.height} is not a multiple of the model's stride ${stride}`);
  }
  return size;
}

export interface Categories {
  readonly labels: readonly string[];
  readonly parents: readonly string[];
  /** Where the labels came from, for the start-up log and `detectd models list`. */
  readonly source: 'configuration' | 'metadata' | 'coco-80';
}

/**
 * Class names: the configuration's `labels`, else the metadata's `names`, else COCO-80. Their
 * number must be the number of classes the output scores, when its shape says (`classCount`).
 */
export function chooseCategories(modelPath: string, { description, metadata }: ModelFacts, classCount: number | undefined, outputDims: readonly number[]): Categories {
  const configFile = path.basename(sidecarPath(modelPath));
  const [labels, source] = description.labels
    ? [description.labels, 'configuration' as const]
    : metadata.names
      ? [metadata.names, 'metadata' as const]
      : [COCO_LABELS, 'coco-80' as const];
  if (classCount !== undefined && classCount !== labels.length) {
    const shape = `[${outputDims.join(', ')}]`;
    throw new Refusal(
      source === 'coco-80'
        ? `its output ${shape} scores ${classCount} classes and the model names none; list them as "labels" in ${configFile}`
        : `its output ${shape} scores ${classCount} classes, but its ${source === 'metadata' ? 'metadata "names"' : `${configFile} "labels"`} has ${labels.length}`,
    );
  }
  const parents = labels.map((label) => description.parents?.[label] ?? parentOf(label));
  return { labels, parents, source };
}
