import { type Corners, intersectionOverUnion } from '../models/nms.js';
import type { Box } from '../vision/image.js';

/** What the tracker needs of one detection. */
export interface TrackableDetection {
  readonly classIndex: number;
  readonly score: number;
  readonly box: Box;
}

export interface TrackerSettings {
  /** Least IoU between a track's box (predicted or last seen) and a detection of the same class for them to match. */
  readonly minIou: number;
  /** Detections scoring at least this get the first pick of the tracks (ByteTrack's high-confidence pass). */
  readonly highScore: number;
  /**
   * A track missing from this many analysed frames in a row is forgotten; the object gets a new id
   * if it comes back. Counted in frames, not time, so that a slow server does not lose its tracks.
   */
  readonly maxMissedFrames: number;
}

export const DEFAULT_TRACKER_SETTINGS: TrackerSettings = { minIou: 0.3, highScore: 0.5, maxMissedFrames: 15 };

/** Box edges' velocity, pixels per time unit. */
interface Velocity {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

interface Track {
  readonly id: number;
  readonly classIndex: number;
  box: Corners;
  /** Unknown until the track has been seen twice. */
  velocity: Velocity | undefined;
  lastSeen: number;
  missedFrames: number;
}

/** How much a new velocity measurement counts against the running estimate: smooths detector jitter. */
const VELOCITY_SMOOTHING = 0.5;
const EDGES = ['x1', 'y1', 'x2', 'y2'] as const;

const cornersOf = (box: Box): Corners => ({ x1: box.left, y1: box.top, x2: box.right, y2: box.bottom });

/** Where the track's box should be at `time` if it keeps moving as it did (constant velocity). */
function predict(track: Track, time: number): Corners {
  const elapsed = time - track.lastSeen;
  const { box, velocity } = track;
  if (!velocity) return box;
  return {
    x1: box.x1 + velocity.x1 * elapsed,
    y1: box.y1 + velocity.y1 * elapsed,
    x2: box.x2 + velocity.x2 * elapsed,
    y2: box.y2 + velocity.y2 * elapsed,
  };
}

/**
 * Gives each detected object a track id that stays the same while the object stays in view, so
 * a client can count and follow objects across frames. ByteTrack-style greedy association:
 * per class, by IoU with each track's motion-predicted box (or its last box, should the motion
 * estimate be off), confident detections first; every detection left unmatched starts a new
 * track. Pure and synchronous: one instance per stream.
 */
export class IouTracker {
  readonly #settings: TrackerSettings;
  #tracks: Track[] = [];
  #nextId = 1;

  constructor(settings: TrackerSettings = DEFAULT_TRACKER_SETTINGS) {
    this.#settings = settings;
  }

  /**
   * Associates one frame's detections, taken at `time`, with the tracks. Any increasing clock
   * works; the stream uses the frame's sequence number, which follows the capture clock of a
   * steady source better than arrival times, which network and event-loop jitter bunch up.
   * Returns the track id of each detection, index-aligned.
   */
  update(detections: readonly TrackableDetection[], time: number): number[] {
    const { minIou, highScore, maxMissedFrames } = this.#settings;
    const predicted = new Map(this.#tracks.map((track) => [track, predict(track, time)]));
    const boxes = detections.map((detection) => cornersOf(detection.box));
    const ids: number[] = new Array<number>(detections.length);
    const free = new Set(this.#tracks);

    const associate = (indices: number[]) => {
      const pairs: { index: number; track: Track; iou: number }[] = [];
      for (const index of indices) {
        for (const track of free) {
          if (track.classIndex !== detections[index].classIndex) continue;
          const iou = Math.max(intersectionOverUnion(predicted.get(track)!, boxes[index]), intersectionOverUnion(track.box, boxes[index]));
          if (iou >= minIou) pairs.push({ index, track, iou });
        }
      }
      pairs.sort((a, b) => b.iou - a.iou);
      for (const { index, track } of pairs) {
        if (ids[index] !== undefined || !free.has(track)) continue;
        free.delete(track);
        ids[index] = track.id;
        this.#observe(track, boxes[index], time);
      }
    };
    const all = detections.map((_, index) => index);
    associate(all.filter((index) => detections[index].score >= highScore));
    associate(all.filter((index) => detections[index].score < highScore));

    for (const track of free) track.missedFrames++;
    this.#tracks = this.#tracks.filter((track) => track.missedFrames <= maxMissedFrames);
    for (const index of all) {
      if (ids[index] !== undefined) continue;
      const track: Track = {
        id: this.#nextId++,
        classIndex: detections[index].classIndex,
        box: boxes[index],
        velocity: undefined,
        lastSeen: time,
        missedFrames: 0,
      };
      this.#tracks.push(track);
      ids[index] = track.id;
    }
    return ids;
  }

  /** The ids of the tracks it still keeps (seen within `maxMissedFrames`): what a stream may still say of a track. */
  liveTracks(): Set<number> {
    return new Set(this.#tracks.map((track) => track.id));
  }

  #observe(track: Track, box: Corners, time: number): void {
    const elapsed = time - track.lastSeen;
    if (elapsed > 0) {
      const measured = { x1: 0, y1: 0, x2: 0, y2: 0 };
      for (const edge of EDGES) measured[edge] = (box[edge] - track.box[edge]) / elapsed;
      const previous = track.velocity;
      if (previous) for (const edge of EDGES) measured[edge] = previous[edge] + VELOCITY_SMOOTHING * (measured[edge] - previous[edge]);
      track.velocity = measured;
    }
    track.box = box;
    track.lastSeen = time;
    track.missedFrames = 0;
  }
}
