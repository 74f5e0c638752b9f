import type { StageTimings } from '../../../core/call-context.js';
import type { ExaminedFace } from '../task/photo-faces.js';

/**
 * The parts of CompreFace's answers that carry one face (its REST API description): `box` with
 * the detector's `probability`, and what the face plugins asked for add. detectd answers two of
 * CompreFace's plugins: `landmarks` (the five points the face is aligned by: eyes, nose tip, mouth
 * corners) and `calculator` (the face's descriptor, as `embedding`). `age`, `gender`, `mask` and
 * `pose` are left out of the answer, as CompreFace leaves out a plugin it does not run
 * (docs/faces.md "CompreFace's API" says why); a client asking for them is answered all the same.
 */
export interface FacePlugins {
  readonly landmarks: boolean;
  readonly calculator: boolean;
}

/** `face_plugins`: comma-separated plugin names; those detectd runs are taken, the others passed over. */
export function facePluginsOf(query: URLSearchParams): FacePlugins {
  const asked = new Set((query.get('face_plugins') ?? '').split(',').map((name) => name.trim().toLowerCase()));
  return { landmarks: asked.has('landmarks'), calculator: asked.has('calculator') };
}

interface CompreFaceBox {
  readonly probability: number;
  readonly x_min: number;
  readonly y_min: number;
  readonly x_max: number;
  readonly y_max: number;
}

const rounded = (value: number) => Math.round(value * 1e5) / 1e5;

/** A face's box and the plugins' parts, as every CompreFace answer carries a face. */
export function faceFields(face: ExaminedFace, plugins: FacePlugins): { box: CompreFaceBox; landmarks?: number[][]; embedding?: number[] } {
  const { bounding_box: box, confidence } = face.finding;
  return {
    box: { probability: rounded(confidence), x_min: Math.round(box.left), y_min: Math.round(box.top), x_max: Math.round(box.right), y_max: Math.round(box.bottom) },
    ...(plugins.landmarks && face.landmarks && { landmarks: face.landmarks.map((point) => [Math.round(point.x), Math.round(point.y)]) }),
    ...(plugins.calculator && face.embedding && { embedding: [...face.embedding] }),
  };
}

/** The `limit` largest faces (0: all), in the order found; CompreFace "recognizes the biggest faces first". */
export function largestFaces(faces: readonly ExaminedFace[], limit: number): readonly ExaminedFace[] {
  if (limit === 0 || faces.length <= limit) return faces;
  const area = ({ finding: { bounding_box: box } }: ExaminedFace) => (box.right - box.left) * (box.bottom - box.top);
  const kept = new Set([...faces].sort((a, b) => area(b) - area(a)).slice(0, limit));
  return faces.filter((face) => kept.has(face));
}

/** What `status=true` adds: which models ran as CompreFace's `detector` and `calculator` plugins, and the milliseconds each took on this call. */
export interface CallStatus {
  readonly detector: string;
  readonly calculator: string;
  readonly timings: StageTimings;
}

/** Each face's `execution_time`: the call's milliseconds in the detector (its pre- and post-processing included) and in recognition (describing and matching). */
export function executionTime(status: CallStatus, described: boolean): Record<string, number> {
  const { timings } = status;
  const detector = (timings.decode ?? 0) + (timings.preprocess ?? 0) + (timings.inference ?? 0) + (timings.postprocess ?? 0);
  return { detector: Math.round(detector), ...(described && { calculator: Math.round(timings.recognize ?? 0) }) };
}

/** `plugins_versions`: the models that answered, named `detectd.<model>`. */
export function pluginsVersions(status: CallStatus, described: boolean): Record<string, string> {
  return { detector: `detectd.${status.detector}`, ...(described && { calculator: `detectd.${status.calculator}` }) };
}
