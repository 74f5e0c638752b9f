import type { StateReading } from '../tasks/task.js';

/** A subject's state settled anew on a stream: what it was (null: nothing had settled yet), what it is now, and how sure the frames that settled it were. */
export interface StateChange {
  readonly subject: string;
  readonly from: string | null;
  readonly to: string;
  /** The mean confidence of the agreeing frames that settled it. */
  readonly confidence: number;
  /** How many frames in a row agreed. */
  readonly frames: number;
}

interface SubjectState {
  settled: string | undefined;
  /** The state the latest frames read, other than the settled one, and their confidences, oldest first. */
  candidate: string | undefined;
  confidences: number[];
}

/**
 * Each subject's settled state on one stream, per source: a subject's state changes only once
 * `framesToAgree` frames in a row read the same new state; a frame that reads no state (the
 * task unsure) neither counts nor breaks the run; one that reads the settled state again ends a
 * run towards another. Pure and synchronous: one instance per stream.
 */
export class SettledStates {
  readonly #sources = new Map<string, Map<string, SubjectState>>();

  /** The settled state of `subject` of `source`; undefined until one has settled. */
  settled(source: string, subject: string): string | undefined {
    return this.#sources.get(source)?.get(subject)?.settled;
  }

  /** Counts one frame's readings of `source`; returns the states that settled anew with it. */
  read(source: string, readings: readonly StateReading[]): StateChange[] {
    // A source is kept only once something of it reads a state: a stream naming ever new cameras that have nothing to read keeps nothing.
    if (!readings.some((reading) => reading.state !== undefined)) return [];
    let subjects = this.#sources.get(source);
    if (!subjects) {
      subjects = new Map();
      this.#sources.set(source, subjects);
    }
    const changes: StateChange[] = [];
    for (const { subject, state, confidence, framesToAgree } of readings) {
      if (state === undefined) continue;
      let known = subjects.get(subject);
      if (!known) {
        known = { settled: undefined, candidate: undefined, confidences: [] };
        subjects.set(subject, known);
      }
      if (state === known.settled) {
        known.candidate = undefined;
        known.confidences = [];
        continue;
      }
      if (state !== known.candidate) {
        known.candidate = state;
        known.confidences = [];
      }
      known.confidences.push(confidence);
      if (known.confidences.length < framesToAgree) continue;
      const mean = known.confidences.reduce((sum, each) => sum + each, 0) / known.confidences.length;
      changes.push({ subject, from: known.settled ?? null, to: state, confidence: Math.round(mean * 1e4) / 1e4, frames: known.confidences.length });
      known.settled = state;
      known.candidate = undefined;
      known.confidences = [];
    }
    return changes;
  }
}
