import type { InputSize, LetterboxSpec } from '../../vision/letterbox.js';
import type { FileDetector, InferenceSettings } from '../model-repository.js';
import type { ModelKind, ModelRole } from '../model-roles.js';
import type { ModelOfRole, RoleModel } from '../role-models.js';
import type { OpenedOnnxModel } from '../runtimes/onnx/onnx-served-model.js';
import type { OutputTensor, TensorDeclaration } from '../types.js';

/** A raw box proposal in network-input pixels, before NMS and mapping back to the image. */
export interface Candidate {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  score: number;
  classIndex: number;
  /** A face's five landmarks (x, y pairs in network-input pixels), where its family reads them. */
  landmarks?: number[];
}

/**
 * What makes a detector family different: how its input is filled and how its output is read.
 * Sessions, NMS and mapping back to image pixels are shared (a runtime's detector, e.g. runtimes/onnx/onnx-detector.ts; postprocess.ts).
 */
export interface ObjectFamily {
  readonly name: string;
  /** True when an output of this shape is this family's (used when no sidecar names the family). */
  matchesOutput(dims: readonly number[]): boolean;
  /** Input layout for a network input of `input` pixels (its declared [N, 3, height, width]). */
  letterbox(input: InputSize): LetterboxSpec;
  /** How many classes an output of this shape scores; undefined when the shape does not say (class ids are values). */
  classCount(dims: readonly number[]): number | undefined;
  /** Whether overlapping same-class candidates must still be merged. */
  readonly needsNms: boolean;
  /** Candidates scoring at least `minScore`, in network-input pixels, from the model's (first) output. */
  readCandidates(output: OutputTensor, input: InputSize, minScore: number): Candidate[];
}

/**
 * A model family the server reads, as one entry of families/index.ts: what its models are (their
 * role, whose interface its `load` yields, and their kind, unless a model's configuration says
 * another kind), how a model that names no family is recognised as one of it, and its loader (as a
 * Kysely dialect brings its driver): given the model's opened sessions, it reads what the file
 * says, warms every session up and builds the model's typed run. Adding a family is its module and
 * one line in the list: no union and no table elsewhere.
 */
export interface Family<Model extends RoleModel = RoleModel> {
  /** What a model's configuration names (`"family"`). */
  readonly name: string;
  readonly role: Model['role'];
  readonly kind: ModelKind;
  /** True for a model whose declared outputs are this family's, read before any session opens; absent: only a configuration naming the family makes a model of it. */
  recognises?(outputs: readonly TensorDeclaration[]): boolean;
  /** What the model file says that refuses it before any session is opened. */
  inspect?(modelPath: string): Promise<void>;
  /** The server-wide inference settings as the family takes them (its own NMS IoU). */
  defaults?(defaults: InferenceSettings): InferenceSettings;
  /** Its sessions open the model with the image input's height and width free, so that it runs at the size its configuration asks (a convolutional embedder). */
  readonly freeInputSize?: boolean;
  load(model: OpenedOnnxModel): Promise<Model & { readonly settings: InferenceSettings }>;
}

/** A family of any role, as the list holds it: each role's family yields that role's model (a detector's, the file's label source too). */
export type AnyFamily = { [Role in ModelRole]: Family<Role extends 'detector' ? FileDetector : ModelOfRole<Role>> }[ModelRole];
