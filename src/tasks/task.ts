import type { JsonSchema } from '../core/schema-catalogue.js';
import type { ModelStep } from '../models/model-step.js';
import type { RoleModel } from '../models/role-models.js';
import type { Detection } from '../models/types.js';
import type { ModelScheduler } from '../scheduler/model-scheduler.js';
import type { AnalysisCall } from './analysis-call.js';
import type { Finding } from './finding.js';

/** Versions of the public API: `v1` (`/api/v1/<task>`, current) and `legacy` (`/api/<task>`). */
export type ApiVersion = 'v1' | 'legacy';

/** One configuration parameter of a task: the single row behind validation, defaults and docs. */
export interface ParameterRule {
  readonly versions: readonly ApiVersion[];
  readonly defaultValue: string;
  /** What a valid value looks like, in words for error messages and docs. */
  readonly allowed: string;
  readonly description: string;
}

/** One configuration parameter as the caller sent it, before validation. */
export interface Configuration {
  readonly parameter: string;
  readonly value: string;
}

/** Parameters as a door read them (a REST body or upload, a stream's `start`, an Nvision message, a DeepStack form), before validation. */
export interface SentParameters {
  /** The task's configuration parameters (`parameters`), of the API version given beside them. */
  readonly configurations?: readonly Configuration[];
  /** The names of the classes to keep; absent or empty: every class. */
  readonly classes?: readonly string[];
  /** The lowest confidence to keep, where a door takes it apart from the configurations; absent: the configurations' or the task's default. */
  readonly minConfidence?: number;
}

/** What one finding says its track is: a face's name, a plate's text, and how sure the task is of it. */
export interface TrackVote {
  readonly answer: string;
  /** 0–1, comparable between the task's findings: a recognized face's similarity, a plate's read confidence. */
  readonly confidence: number;
}

/**
 * One thing a task found, in one record with everything said of it: its wire form (`finding`:
 * name, confidence, and each optional part — box, text, state, attributes, …), what a stream's
 * tracker follows it by, and what it says its track is. (As Ultralytics' Results keeps its optional
 * heads in one object: nothing is matched up by position.)
 */
export interface FindingRecord {
  readonly finding: Finding;
  /** The detection a stream's tracker follows from frame to frame (a place in the image); absent: a finding about the whole image, which has no track. */
  readonly tracked?: Detection;
  /**
   * What it says its track is, for a stream's one answer per track (streaming/track-votes.ts);
   * absent: it says nothing (an object's class is already its track's).
   */
  readonly vote?: TrackVote;
  /** What it reads of a thing that stays in place from frame to frame, for a stream's state changes (streaming/state-changes.ts); absent: nothing. */
  readonly reading?: StateReading;
}

/**
 * One frame's reading of the state of something that stays in place and keeps its name from frame to
 * frame (a region of a camera's frame): a stream (per source) settles its state once `framesToAgree`
 * frames in a row read the same new state, and reports each change as an event.
 */
export interface StateReading {
  /** What it reads: the same name in every frame of a source. */
  readonly subject: string;
  /** Its state in this frame; absent: this frame cannot tell, and it neither counts towards a change nor breaks a run of agreeing frames. */
  readonly state?: string;
  /** 0–1: how sure this frame is of `state`. */
  readonly confidence: number;
  /** How many frames in a row must read a new state before it settles: the task's parameter (1: at once). */
  readonly framesToAgree: number;
}

/** What a task found in one image: every door maps these to its own wire form. */
export interface Findings {
  /** Size of the image as a person sees it: the boxes' pixel space. */
  readonly width: number;
  readonly height: number;
  /** What was found, highest confidence first: the elements of the task's `answerField` (`finding`), each with its track and vote. */
  readonly found: readonly FindingRecord[];
  /** The image with every box drawn (base64 JPEG), when the parameters ask for it. */
  readonly visualizedImage?: string;
}

/** The findings as every wire carries them: each record's `finding`, in order. */
export const wireFindings = (findings: Findings): Finding[] => findings.found.map((record) => record.finding);

/** The photo a task's example call sends: a file name, and how the docs and the console describe it. */
export interface ExamplePhoto {
  readonly file: string;
  /** What the file is, as in "with an image file, dog.jpg, in the current folder". */
  readonly description: string;
}

/**
 * What a task does, in its own terms, beyond `analyse`: each door decides which of its own verbs
 * these enable (the DeepStack door's route table, transports/deepstack/), so no task names a door.
 */
export interface TaskAbilities {
  /** A verb of its own, for the doors that name their calls by verb: one image in, its findings out. */
  readonly verb?: TaskVerb;
}

/** A task's own verb (`scene`, `plate-text`, …): what a door that names calls by verb calls it, and how it is described. */
export interface TaskVerb {
  /** Lowercase letters, digits and '-': a path segment. */
  readonly name: string;
  /** What a call of it answers, for the reference. */
  readonly summary: string;
}

/**
 * A service type: `object-detection`, `face-detection`, … What it is (its type, what model leads
 * it, its parameters and their schema, the name of its answer) and one `analyse(image,
 * parameters, call) → findings`. It knows no JSON body, upload, frame or form field: every
 * front door (REST v1 and legacy, both video streams, the DeepStack door), the OpenAPI document,
 * the docs page, the console and the CLI read the task table (the features' tasks, handed out by the
 * composition root) and reach a task only through this interface; the models it runs it declares
 * (`lead`, `composes`) and reaches through their schedulers. So a new task of the roles and kinds
 * the server's families serve is one feature folder and one line in features/index.ts; a new family or role is
 * models/' business (docs/development.md). `Parameters` is the task's own parsed parameters,
 * opaque outside its folder; `Lead` the interface of its lead step's model (a Detector, an Embedder, …).
 */
export interface Task<Parameters = unknown, Lead extends RoleModel = RoleModel> {
  readonly type: string;
  /**
   * Its service's model, of any role (a detector, an embedder, a classifier, …): a service of
   * this task is answered only by a model of this role and kind, the one it names or the step's
   * default (AnalysisCall.scheduler).
   */
  readonly lead: ModelStep<Lead>;
  /**
   * The models the task runs after its lead, in order, by role and kind (as a Triton ensemble's
   * steps), e.g. a plate reader after the plate detector: each is served by the first loaded model
   * of its role and kind, through its scheduler (FeatureServer.models). The server loads what
   * they need (a built-in model where none is configured) at start-up. Absent: the lead alone.
   */
  readonly composes?: readonly ModelStep[];
  /** Short phrase for docs and the console, e.g. "Detect objects in one image". */
  readonly summary: string;
  /** What its findings' confidence is called where the console's Try it shows it (`Face confidence`: that it is a face, not who it is); absent: `Confidence`. */
  readonly confidenceName?: string;
  /** Names of the JSON Schemas of the JSON request and response: schemas/<name>.json, or one of the task's own `schemas`. */
  readonly requestSchema: string;
  readonly responseSchema: string;
  /** JSON Schemas the task brings from its folder (each named by its `$id` without `.json`), added to schemas/ at start-up. */
  readonly schemas?: readonly JsonSchema[];
  readonly parameters: Readonly<Record<string, ParameterRule>>;
  /**
   * The name of the list of what was found, on every wire that carries it: the JSON API, the JSON
   * stream's `result` and, where its protobuf has a field of that name, the Nvision message.
   */
  readonly answerField: string;
  /**
   * The form fields (besides the image) of this task's example call, to show how parameters travel:
   * tasks/example-calls.ts turns them into the console's curl, Python and JavaScript, and the curl of the README and /docs.
   */
  readonly exampleFields: Readonly<Record<string, string>>;
  /** The photo its example call sends, when dog.jpg would show nothing (a face task needs a face). */
  readonly examplePhoto?: ExamplePhoto;
  /**
   * Parameters as sent → the task's parameters, for the model that answers; 400
   * `invalid_configuration` (or `invalid_request`) on any problem. `version`: the API whose
   * configuration parameters were sent; undefined for a door that has none of its own (DeepStack's).
   */
  parseParameters(sent: SentParameters, version: ApiVersion | undefined, scheduler: ModelScheduler<Lead>): Parameters;
  /** One image → what was found in it. */
  analyse(image: Buffer, parameters: Parameters, call: AnalysisCall<Lead>): Promise<Findings>;
  /** What else it does, for the doors that have verbs for it; nothing when absent. */
  readonly abilities?: TaskAbilities;
}

/** Names of the parameters a version of the API accepts. */
export function parameterNames(parameters: Readonly<Record<string, ParameterRule>>, version: ApiVersion | undefined): string[] {
  return Object.entries(parameters)
    .filter(([, rule]) => version !== undefined && rule.versions.includes(version))
    .map(([name]) => name);
}
