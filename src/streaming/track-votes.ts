import type { Finding } from '../tasks/finding.js';

/** One frame's say on what its track is: a face's name, a plate's text. */
export interface Vote {
  readonly answer: string;
  /** How much the frame counts: its box's area × the task's confidence in `answer`. */
  readonly weight: number;
  /** The known plate the frame's finding matched, if any: the track's answer carries its answer's. */
  readonly known?: Finding['known'];
}

/** A track's decided answer, as it goes on the wire beside the frame's own. */
export interface TrackAnswer {
  /** The answer with the most weight among the track's recent frames. */
  readonly name: string;
  /** Of those frames, how many said `name`. */
  readonly frames_agreeing: number;
  /** The track's recent frames that voted (at most the window). */
  readonly frames: number;
  /** The known plate `name` matched, as the latest frame that said it was matched. */
  readonly known?: Finding['known'];
}

/**
 * How many of a track's latest voting frames count. A window rather than a decay, so that
 * `frames_agreeing` and `frames` are plain counts of frames a client can check; a track whose
 * evidence changes (a plate read wrong while far, right once near) changes its answer once the new
 * answer outweighs the old within the window.
 */
export const DEFAULT_VOTE_WINDOW = 30;

interface TrackBallot {
  /** The latest votes, oldest first; at most the window. */
  readonly votes: Vote[];
  decided: string | undefined;
}

/**
 * One answer per track: each frame of a track votes for its answer with its weight; the track's
 * answer is the one with the most weight over its latest `window` votes. The answer in force
 * stays until another strictly outweighs it, so a tie never flips it (no flicker), and a single
 * misread frame cannot win against two or more frames of similar weight. Pure and synchronous:
 * one instance per stream, beside its tracker, told which tracks the tracker still keeps.
 */
export class TrackVotes {
  readonly #window: number;
  readonly #ballots = new Map<number, TrackBallot>();

  constructor(window = DEFAULT_VOTE_WINDOW) {
    this.#window = window;
  }

  /** Tracks that have votes: never more than the tracker keeps, once `keepOnly` has been told. */
  get tracks(): number {
    return this.#ballots.size;
  }

  /** Counts one frame's vote for track `trackId`; returns the track's answer with it. */
  vote(trackId: number, vote: Vote): TrackAnswer {
    let ballot = this.#ballots.get(trackId);
    if (!ballot) {
      ballot = { votes: [], decided: undefined };
      this.#ballots.set(trackId, ballot);
    }
    ballot.votes.push(vote);
    if (ballot.votes.length > this.#window) ballot.votes.shift();
    const weights = new Map<string, number>();
    for (const { answer, weight } of ballot.votes) weights.set(answer, (weights.get(answer) ?? 0) + weight);
    let leader = ballot.decided !== undefined && weights.has(ballot.decided) ? ballot.decided : ballot.votes[0].answer;
    for (const [answer, weight] of weights) if (weight > weights.get(leader)!) leader = answer;
    ballot.decided = leader;
    const agreeing = ballot.votes.filter(({ answer }) => answer === leader);
    const known = agreeing[agreeing.length - 1].known;
    return { name: leader, frames_agreeing: agreeing.length, frames: ballot.votes.length, ...(known && { known }) };
  }

  /** Forgets the votes of every track but these (the tracker's live ones): a dropped track's votes go with it. */
  keepOnly(liveTracks: ReadonlySet<number>): void {
    for (const trackId of this.#ballots.keys()) if (!liveTracks.has(trackId)) this.#ballots.delete(trackId);
  }
}
