import { expect } from 'chai';
import { LatestFrameSlot } from '../src/streaming/latest-frame.js';
import { IouTracker, type TrackableDetection } from '../src/streaming/tracker.js';

const DOG = 16;
const CAT = 15;

function detection(classIndex: number, left: number, top: number, size = 100, score = 0.9): TrackableDetection {
  return { classIndex, score, box: { left, top, right: left + size, bottom: top + size } };
}

describe('IouTracker', () => {
  it('keeps an id for an object that moves a little from frame to frame, and numbers new objects from 1', () => {
    const tracker = new IouTracker();
    expect(tracker.update([detection(DOG, 0, 0), detection(CAT, 300, 0)], 0)).to.deep.equal([1, 2]);
    expect(tracker.update([detection(CAT, 310, 5), detection(DOG, 10, 10)], 33)).to.deep.equal([2, 1]);
    expect(tracker.update([detection(DOG, 20, 20)], 66)).to.deep.equal([1]);
  });

  it('matches per class: a cat where the dog was is a new object', () => {
    const tracker = new IouTracker();
    tracker.update([detection(DOG, 0, 0)], 0);
    expect(tracker.update([detection(CAT, 0, 0)], 33)).to.deep.equal([2]);
  });

  it('follows an object that speeds up by its velocity, even when consecutive boxes barely overlap', () => {
    const tracker = new IouTracker();
    // 20 px per frame, then 60: the IoU of two 100 px boxes 60 px apart is 0.25, under the 0.3 gate.
    const lefts = [0, 20, 40, 60, 120, 180, 240];
    const ids = lefts.map((left, frame) => tracker.update([detection(DOG, left, 0)], frame * 33)[0]);
    expect(ids).to.deep.equal([1, 1, 1, 1, 1, 1, 1]);
    const still = new IouTracker();
    expect(lefts.slice(3, 5).map((left, frame) => still.update([detection(DOG, left, 0)], frame * 33)[0]), 'without a known velocity').to.deep.equal([1, 2]);
  });

  it('uses elapsed time, so dropped frames in between do not break the prediction', () => {
    const tracker = new IouTracker();
    tracker.update([detection(DOG, 0, 0)], 0);
    tracker.update([detection(DOG, 40, 0)], 100);
    // Three frames skipped: the dog moved on at the same speed.
    expect(tracker.update([detection(DOG, 200, 0)], 500)).to.deep.equal([1]);
  });

  it('falls back to the last box when the motion estimate is wild', () => {
    const tracker = new IouTracker();
    // Two frames stamped almost at once: an 8 px jitter reads as a huge velocity.
    tracker.update([detection(DOG, 100, 100)], 0);
    tracker.update([detection(DOG, 92, 100)], 0.2);
    expect(tracker.update([detection(DOG, 85, 100)], 6)).to.deep.equal([1]);
  });

  it('lets confident detections pick tracks first, and still gives every detection an id', () => {
    const tracker = new IouTracker();
    tracker.update([detection(DOG, 0, 0)], 0);
    // A weak duplicate overlaps the track more than the confident detection does.
    const ids = tracker.update([detection(DOG, 0, 0, 100, 0.2), detection(DOG, 20, 0, 100, 0.9)], 33);
    expect(ids).to.deep.equal([2, 1]);
  });

  it('forgets a track missing from more than maxMissedFrames analysed frames, and keeps one missed briefly', () => {
    const tracker = new IouTracker({ minIou: 0.3, highScore: 0.5, maxMissedFrames: 2 });
    tracker.update([detection(DOG, 0, 0)], 0);
    tracker.update([], 33);
    tracker.update([], 66);
    expect(tracker.update([detection(DOG, 0, 0)], 5000), 'missed twice, seconds later').to.deep.equal([1]);
    for (const time of [5033, 5066, 5100]) tracker.update([], time);
    expect(tracker.update([detection(DOG, 0, 0)], 5133)).to.deep.equal([2]);
  });

  it('matches greedily by best overlap, one detection per track', () => {
    const tracker = new IouTracker();
    tracker.update([detection(DOG, 0, 0), detection(DOG, 80, 0)], 0);
    expect(tracker.update([detection(DOG, 85, 0), detection(DOG, 5, 0), detection(DOG, 40, 0)], 33)).to.deep.equal([2, 1, 3]);
  });
});

describe('LatestFrameSlot', () => {
  it('holds only the newest frame and counts the ones it replaced as dropped', () => {
    const slot = new LatestFrameSlot<number>();
    expect(slot.take()).to.equal(undefined);
    slot.offer(1);
    expect(slot.take()).to.deep.equal({ frame: 1, dropped: 0 });
    for (const frame of [2, 3, 4]) slot.offer(frame);
    expect(slot.take()).to.deep.equal({ frame: 4, dropped: 2 });
    expect(slot.take()).to.equal(undefined);
    slot.offer(5);
    expect(slot.take()).to.deep.equal({ frame: 5, dropped: 0 });
  });
});
