import type { StageTimings } from '../../../core/call-context.js';
import { UNKNOWN_PERSON } from '../gallery/unknown-person.js';
import type { ImageAnalysis } from '../../../core/pipeline.js';
import type { FaceMatcher } from '../gallery/face-gallery.js';
import type { FaceRecognition } from '../gallery/face-recognition.js';
import type { NamedDetection, Naming } from '../../../tasks/found-response.js';
import type { TrackVote } from '../../../tasks/task.js';
import type { Detection } from '../../../models/types.js';
import type { RgbImage } from '../../../vision/image.js';

/** Every face's `parent`, and the `name` of a face when the service has nobody registered to compare with. */
const FACE = 'face';
const UNRECOGNIZED: Naming = { name: FACE, parent: FACE };

/** What recognition needs to name faces: the service's gallery as read once (absent when nobody is registered), and the describer. */
export interface FaceRecognizer extends Pick<FaceRecognition, 'smallestFace'> {
  readonly matcher?: Pick<FaceMatcher, 'match'>;
  describe(image: RgbImage, face: Detection): Promise<Float32Array>;
}

/** One face, with who it is, its descriptor where it was described, and what it says its stream track is. */
export interface NamedFace extends NamedDetection {
  readonly descriptor?: Float32Array;
}

/**
 * Each detected face → who it is: the registered person it matches best at or above the service's
 * threshold (`name` = theirs, with the similarity), else `unknown` (so is a face too small
 * to describe: FaceRecognition.smallestFace); every face is just `face` when the service has
 * nobody registered (no `matcher`: described all the same, for the call to cost what it will with
 * people, and to be kept when the service remembers unknown faces) or recognition is not asked for
 * (`recognizer` undefined: nothing is described then). The analysis holds the full-resolution pixels when there is a recognizer.
 */
export async function nameFaces(analysis: ImageAnalysis, recognizer: FaceRecognizer | undefined, timings: StageTimings): Promise<NamedFace[]> {
  if (!recognizer || analysis.detections.length === 0) return analysis.detections.map((detection) => ({ detection, naming: UNRECOGNIZED }));
  const started = performance.now();
  const pixels = analysis.pixels;
  if (!pixels) throw new Error('recognition needs the image decoded at full resolution');
  const faces: NamedFace[] = [];
  // One face after the other: the describer runs one face at a time anyway (its scheduler's capacity), and the order is the answer's.
  for (const detection of analysis.detections) {
    const tooSmall = detection.box.bottom - detection.box.top < recognizer.smallestFace;
    const descriptor = tooSmall ? undefined : await recognizer.describe(pixels, detection);
    const described = descriptor && { descriptor };
    if (!recognizer.matcher) {
      faces.push({ detection, naming: UNRECOGNIZED, ...described });
      continue;
    }
    const match = descriptor && recognizer.matcher.match(descriptor);
    const naming = match ? { name: match.name, parent: FACE, similarity: Math.round(match.similarity * 1e5) / 1e5 } : { name: UNKNOWN_PERSON, parent: FACE };
    faces.push({ detection, naming, ...described, ...faceTrackVote(naming, detection) });
  }
  timings.recognize = performance.now() - started;
  return faces;
}

/**
 * What a face says its stream track is: the person it was named, as sure as the match's
 * similarity; or `unknown`, which votes too (a stranger's track stays unknown), as sure as the
 * detector is that it is a face — the same 0–1 scale, so neither
 * outweighs the other by its scale; nothing when the service has nobody registered.
 */
function faceTrackVote(naming: Naming, detection: Detection): { vote: TrackVote } | undefined {
  if (naming.similarity !== undefined) return { vote: { answer: naming.name, confidence: naming.similarity } };
  return naming.name === UNKNOWN_PERSON ? { vote: { answer: UNKNOWN_PERSON, confidence: Math.round(detection.score * 1e5) / 1e5 } } : undefined;
}
