import fs from 'node:fs';
import { expect } from 'chai';
import { DEFAULT_VOTE_WINDOW, TrackVotes } from '../src/streaming/track-votes.js';
import { IouTracker } from '../src/streaming/tracker.js';

/** The wire's limit on `frames`, which must be the window's. */
const schemaMaximum = (JSON.parse(fs.readFileSync('schemas/stream-server-message.json', 'utf8')) as { $defs: { trackAnswer: { properties: { frames: { maximum: number } } } } }).$defs.trackAnswer.properties.frames.maximum;

describe('one answer per track: the weighted vote of its frames (streaming/track-votes.ts)', () => {
  it('decides by weight, not by count: one large sure frame outweighs two small unsure ones', () => {
    const votes = new TrackVotes();
    expect(votes.vote(1, { answer: 'DG2Z6U', weight: 4000 })).to.deep.equal({ name: 'DG2Z6U', frames_agreeing: 1, frames: 1 });
    expect(votes.vote(1, { answer: 'DG2Z6V', weight: 1000 })).to.deep.equal({ name: 'DG2Z6U', frames_agreeing: 1, frames: 2 });
    expect(votes.vote(1, { answer: 'DG2Z6V', weight: 1000 })).to.deep.equal({ name: 'DG2Z6U', frames_agreeing: 1, frames: 3 });
    expect(votes.vote(1, { answer: 'DG2Z6V', weight: 2500 })).to.deep.equal({ name: 'DG2Z6V', frames_agreeing: 3, frames: 4 });
  });

  it('a single misread among frames of like weight never wins, and the track\'s answer stays through it', () => {
    const votes = new TrackVotes();
    const answers = ['amy', 'amy', 'amy', 'penny', 'amy', 'amy'].map((answer, index) => votes.vote(7, { answer, weight: 900 + 10 * index }));
    expect(answers.map((answer) => answer.name)).to.deep.equal(['amy', 'amy', 'amy', 'amy', 'amy', 'amy']);
    expect(answers[3]).to.deep.equal({ name: 'amy', frames_agreeing: 3, frames: 4 });
    expect(answers[5]).to.deep.equal({ name: 'amy', frames_agreeing: 5, frames: 6 });
  });

  it('a plate\'s track answer carries the known plate its decided text matched, not a misread frame\'s', () => {
    const votes = new TrackVotes();
    const ben = { name: 'Ben', plate: 'M5XSK', distance: 0 };
    votes.vote(2, { answer: 'M5XSK', weight: 900, known: ben });
    votes.vote(2, { answer: 'M5XSK', weight: 900, known: ben });
    expect(votes.vote(2, { answer: 'M5X5K', weight: 950 })).to.deep.equal({ name: 'M5XSK', frames_agreeing: 2, frames: 3, known: ben });
    expect(votes.vote(5, { answer: 'QQ123', weight: 900 })).to.deep.equal({ name: 'QQ123', frames_agreeing: 1, frames: 1 });
  });

  it('a tie keeps the answer in force: alternating answers of equal weight do not flicker', () => {
    const votes = new TrackVotes();
    const names = ['amy', 'unknown', 'unknown', 'amy', 'unknown', 'amy'].map((answer) => votes.vote(3, { answer, weight: 500 }).name);
    // After frame 2 the two are tied (amy stays), frame 3 puts unknown ahead, frame 4 ties them again (unknown stays).
    expect(names).to.deep.equal(['amy', 'amy', 'unknown', 'unknown', 'unknown', 'unknown']);
  });

  it('counts only the latest window of frames, so an old track follows evidence that changed', () => {
    const window = 5;
    const votes = new TrackVotes(window);
    for (let frame = 0; frame < window; frame++) votes.vote(1, { answer: 'M5XSX', weight: 100 });
    const after = ['M5X5X', 'M5X5X', 'M5X5X'].map((answer) => votes.vote(1, { answer, weight: 100 }));
    // Two new frames leave 3 old against 2 new; the third leaves 2 against 3.
    expect(after.map((answer) => answer.name)).to.deep.equal(['M5XSX', 'M5XSX', 'M5X5X']);
    expect(after[2]).to.deep.equal({ name: 'M5X5X', frames_agreeing: 3, frames: window });
    expect(DEFAULT_VOTE_WINDOW, 'the schema\'s maximum of `frames` is the window').to.equal(schemaMaximum);
  });

  it('keeps tracks apart, and forgets the votes of a track the tracker dropped: a new track of the same id starts afresh', () => {
    const votes = new TrackVotes();
    votes.vote(1, { answer: 'amy', weight: 100 });
    votes.vote(2, { answer: 'penny', weight: 100 });
    expect(votes.vote(1, { answer: 'amy', weight: 100 })).to.deep.equal({ name: 'amy', frames_agreeing: 2, frames: 2 });
    votes.keepOnly(new Set([2]));
    expect(votes.tracks).to.equal(1);
    expect(votes.vote(1, { answer: 'howard', weight: 1 })).to.deep.equal({ name: 'howard', frames_agreeing: 1, frames: 1 });
    expect(votes.vote(2, { answer: 'penny', weight: 100 })).to.deep.equal({ name: 'penny', frames_agreeing: 2, frames: 2 });
  });

  it('memory stays flat on a long stream: the votes follow the tracker\'s live tracks, which it drops after maxMissedFrames', () => {
    const tracker = new IouTracker({ minIou: 0.3, highScore: 0.5, maxMissedFrames: 2 });
    const votes = new TrackVotes();
    // Each frame a new object far from every earlier one: one new track a frame, each seen once.
    for (let frame = 1; frame <= 100; frame++) {
      const left = frame * 50;
      const [trackId] = tracker.update([{ classIndex: 0, score: 0.9, box: { left, top: 0, right: left + 20, bottom: 20 } }], frame);
      votes.vote(trackId, { answer: `plate ${frame}`, weight: 400 });
      votes.keepOnly(tracker.liveTracks());
      expect(votes.tracks, `frame ${frame}`).to.be.at.most(3);
    }
    expect(votes.tracks).to.equal(tracker.liveTracks().size);
  });
});
