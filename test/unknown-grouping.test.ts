import { expect } from 'chai';
import { faceSimilarity, faceSimilarityFrom, squaredDistanceWithin } from '../src/features/faces/gallery/face-similarity.js';
import { GroupedFaces, type GroupingRule, UNKNOWN_GROUPING } from '../src/features/faces/gallery/unknown-grouping.js';

/** A seeded generator (mulberry32): the same made-up faces on every run. */
function randomFrom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Unit descriptors of 128 values: anywhere, or near `center` (the larger `closeness`, the nearer; 40 puts one person's faces about 0.8 alike). */
function descriptors(random: () => number) {
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return (center?: Float32Array, closeness = 0): Float32Array => {
    const values = Float32Array.from({ length: 128 }, (_, i) => (center ? center[i] * closeness : 0) + gaussian());
    const norm = Math.hypot(...values);
    return values.map((value) => value / norm);
  };
}

/** The rule read plainly: every face compared in full, group by group. */
function groupByReading(descriptor: Float32Array, groups: ReadonlyMap<string, readonly Float32Array[]>, excluded: ReadonlySet<string>, rule: GroupingRule): string | undefined {
  let best: { id: string; nearest: number } | undefined;
  let runnerUp = 0;
  for (const [id, members] of groups) {
    if (excluded.has(id) || members.length === 0) continue;
    const similarities = members.map((member) => faceSimilarity(descriptor, member));
    const nearest = Math.max(...similarities);
    const qualifies = nearest >= rule.nearest && similarities.filter((similarity) => similarity >= rule.member).length >= rule.memberShare * members.length;
    if (qualifies && (!best || nearest > best.nearest)) {
      if (best) runnerUp = Math.max(runnerUp, best.nearest);
      best = { id, nearest };
    } else {
      runnerUp = Math.max(runnerUp, nearest);
    }
  }
  return best && best.nearest - runnerUp >= rule.margin ? best.id : undefined;
}

describe('grouping kept unknown faces (gallery/unknown-grouping.ts): every kept face in one array, compared in one pass', () => {
  it('decides as the rule read plainly does, face after face, while faces are kept and forgotten and one image\u2019s groups are barred', () => {
    const random = randomFrom(42);
    const descriptor = descriptors(random);
    const people = Array.from({ length: 60 }, () => descriptor());
    const grouped = new GroupedFaces();
    const groups = new Map<string, Float32Array[]>();
    const faces: { id: string; group: string; descriptor: Float32Array }[] = [];
    const outcomes = { joined: 0, started: 0, barred: 0 };
    for (let n = 0; n < 1500; n++) {
      // Mostly faces of the made-up people (some closer, some blurrier), some all but repeating one kept face (most
      // alike to it, not to its group's others), a few strangers.
      const draw = random();
      const face =
        draw < 0.1 ? descriptor() : draw < 0.3 && faces.length > 0 ? descriptor(faces[Math.floor(random() * faces.length)].descriptor, 150) : descriptor(people[Math.floor(random() * people.length)], 30 + 50 * random());
      // Now and then the group it would join holds a face of its image already.
      const wouldJoin = groupByReading(face, groups, new Set(), UNKNOWN_GROUPING);
      const excluded = new Set(wouldJoin !== undefined && random() < 0.15 ? [wouldJoin] : []);
      for (const rule of [UNKNOWN_GROUPING, { ...UNKNOWN_GROUPING, margin: 0 }, { nearest: 0.78, memberShare: 0.5, member: 0.75, margin: 0.03 }, { nearest: 0.82, memberShare: 1, member: 0.8, margin: 0.02 }]) {
        expect(grouped.groupFor(face, excluded, rule), `face ${n}, rule ${JSON.stringify(rule)}`).to.equal(groupByReading(face, groups, excluded, rule));
      }
      const joined = grouped.groupFor(face, excluded);
      if (wouldJoin !== undefined && excluded.has(wouldJoin)) outcomes.barred++;
      outcomes[joined === undefined ? 'started' : 'joined']++;
      const group = joined ?? `group ${n}`;
      const id = `face ${n}`;
      grouped.add(id, group, face);
      groups.set(group, [...(groups.get(group) ?? []), face]);
      faces.push({ id, group, descriptor: face });
      // Forgotten now and then: the oldest (as the cap does), or one anywhere (a face added to a registered person).
      if (random() < 0.3) {
        const [forgotten] = faces.splice(random() < 0.5 ? 0 : Math.floor(random() * faces.length), 1);
        grouped.remove(forgotten.id);
        const left = groups.get(forgotten.group)!.filter((member) => member !== forgotten.descriptor);
        if (left.length === 0) groups.delete(forgotten.group);
        else groups.set(forgotten.group, left);
      }
    }
    expect(grouped.size).to.equal(faces.length);
    for (const face of faces.slice(0, 50)) expect(grouped.descriptorOf(face.id)).to.deep.equal(face.descriptor);
    // The made-up faces exercise every outcome, so agreeing means something.
    expect(outcomes.joined, 'faces that joined a group').to.be.above(300);
    expect(outcomes.started, 'faces that started one').to.be.above(100);
    expect(outcomes.barred, 'faces kept from the group of their own image').to.be.above(20);
  });

  it('lets go of a group with its last face, and hands out copies of the descriptors it holds', () => {
    const descriptor = descriptors(randomFrom(7));
    const person = descriptor();
    const [a, b, c] = [descriptor(person, 60), descriptor(person, 60), descriptor(person, 60)];
    const grouped = new GroupedFaces();
    grouped.add('a', 'g1', a);
    grouped.add('b', 'g1', b);
    expect(grouped.groupFor(c, new Set())).to.equal('g1');
    expect(grouped.groupFor(c, new Set(['g1']))).to.equal(undefined);
    grouped.remove('a');
    grouped.remove('missing');
    expect(grouped.groupFor(c, new Set())).to.equal('g1');
    grouped.remove('b');
    expect(grouped.size).to.equal(0);
    expect(grouped.groupFor(c, new Set())).to.equal(undefined);
    grouped.add('c', 'g2', c);
    const copy = grouped.descriptorOf('c')!;
    copy.fill(0);
    expect(grouped.descriptorOf('c')).to.deep.equal(c);
    expect(grouped.descriptorOf('a')).to.equal(undefined);
    expect(() => grouped.add('d', 'g2', new Float32Array(64))).to.throw(RangeError, /128 and 64/);
    expect(() => grouped.groupFor(new Float32Array(64), new Set())).to.throw(RangeError, /64 and 128/);
  });

  it('sums a distance eight values a step as one value a step does, whatever the width, and stops once past its limit', () => {
    const random = randomFrom(3);
    for (const width of [1, 5, 8, 13, 128, 131, 512]) {
      const a = Float32Array.from({ length: width }, () => random() - 0.5);
      const rows = Float32Array.from({ length: 3 * width }, () => random() - 0.5);
      let plain = 0;
      for (let i = 0; i < width; i++) plain += (a[i] - rows[width + i]) ** 2;
      expect(squaredDistanceWithin(a, rows, width, Infinity), `width ${width}`).to.be.closeTo(plain, 1e-9 * width);
      const stopped = squaredDistanceWithin(a, rows, width, plain / 4);
      expect(stopped).to.be.above(plain / 4).and.at.most(plain + 1e-9);
    }
    const [x, y] = [new Float32Array([1, 0, 0]), new Float32Array([0, 1, 0])];
    // 1 − √2 / 2: two orthogonal unit descriptors.
    expect(faceSimilarity(x, y)).to.be.closeTo(1 - Math.SQRT2 / 2, 1e-12);
    expect(faceSimilarityFrom(x, y, 0.5)).to.equal(-Infinity);
    expect(faceSimilarityFrom(x, x, 0.5)).to.equal(1);
  });
});
