import { expect } from 'chai';
import { SettledStates } from '../src/streaming/state-changes.js';
import type { StateReading } from '../src/tasks/task.js';

const reading = (state: string | undefined, framesToAgree = 3, subject = 'gate'): StateReading => ({ subject, state, confidence: 0.8, framesToAgree });

describe('a stream\'s settled states: a subject\'s state changes once N frames in a row agree (streaming/state-changes.ts)', () => {
  it('settles after N agreeing frames, from nothing first; a frame reading the settled state again ends a run towards another', () => {
    const states = new SettledStates();
    const changes = ['open', 'open', 'open', 'shut', 'shut', 'open', 'shut', 'shut', 'shut'].map((state) => states.read('cam', [reading(state)]));
    expect(changes.map((frame) => frame.map((change) => `${String(change.from)}→${change.to}`))).to.deep.equal([[], [], ['null→open'], [], [], [], [], [], ['open→shut']]);
    expect(changes[2][0]).to.deep.equal({ subject: 'gate', from: null, to: 'open', confidence: 0.8, frames: 3 });
    expect(states.settled('cam', 'gate')).to.equal('shut');
  });

  it('an unsure frame neither counts nor breaks the run; each source keeps its own subjects', () => {
    const states = new SettledStates();
    const open = [reading('open'), reading(undefined), reading('open'), reading(undefined), reading('open')].map((each) => states.read('cam', [each]));
    expect(open.flat().map((change) => change.to)).to.deep.equal(['open']);
    expect(open[4]).to.have.length(1);
    expect(states.settled('other cam', 'gate')).to.equal(undefined);
    expect(states.read('other cam', [reading('shut', 1)])).to.deep.equal([{ subject: 'gate', from: null, to: 'shut', confidence: 0.8, frames: 1 }]);
    expect(states.settled('cam', 'gate')).to.equal('open');
  });
});
