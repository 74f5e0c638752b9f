import { expect } from 'chai';
import { plateKey, plateMatcher, plateText } from '../src/features/plates/plate-match.js';

describe('known plates: matching a read to a known plate (features/plates/plate-match.ts)', () => {
  it('writes a plate without case or separators, and folds O into 0 and I into 1 for matching', () => {
    expect(plateText('ab-123 c.d')).to.equal('AB123CD');
    expect(plateKey('DO1 IAB')).to.equal(plateKey('d01-1ab'));
    expect(plateKey('B8')).to.equal('B8');
  });

  it('counts changed, added and dropped characters as one each, up to the service\'s distance', () => {
    const ben = [{ plate: 'ABC123', name: 'Ben' }];
    expect(plateMatcher(ben, 1)('ABC124')?.distance).to.equal(1);
    expect(plateMatcher(ben, 1)('ABC12')?.distance).to.equal(1);
    expect(plateMatcher(ben, 1)('ABC1234')?.distance).to.equal(1);
    expect(plateMatcher(ben, 1)('XBC12')).to.equal(undefined);
    expect(plateMatcher(ben, 2)('XBC12')?.distance).to.equal(2);
    expect(plateMatcher(ben, 3)('XYZ789')).to.equal(undefined);
  });

  const known = [
    { plate: 'DG2Z6U', name: 'Amy' },
    { plate: 'JQS 5683', name: 'Ben' },
    { plate: 'AB1', name: 'Short' },
  ];

  it('a read one character off a known plate is that plate, O/0 and I/1 counting as equal', () => {
    const match = plateMatcher(known, 1);
    expect(match('DG2Z6U')).to.deep.equal({ name: 'Amy', plate: 'DG2Z6U', distance: 0 });
    expect(match('DG2Z8U')).to.deep.equal({ name: 'Amy', plate: 'DG2Z6U', distance: 1 });
    expect(match('JQS5G83')).to.deep.equal({ name: 'Ben', plate: 'JQS 5683', distance: 1 });
    expect(match('DG2Z6')).to.deep.equal({ name: 'Amy', plate: 'DG2Z6U', distance: 1 });
    expect(match('JQSS683')).to.deep.equal({ name: 'Ben', plate: 'JQS 5683', distance: 1 });
    expect(plateMatcher([{ plate: 'D01 1AB', name: 'Cy' }], 0)('DOIIAB')).to.deep.equal({ name: 'Cy', plate: 'D01 1AB', distance: 0 });
  });

  it('two characters off, an unlisted plate and an empty read are no match; a larger distance reaches further', () => {
    const match = plateMatcher(known, 1);
    expect(match('DG2Z8V')).to.equal(undefined);
    expect(match('XYZ987')).to.equal(undefined);
    expect(match('')).to.equal(undefined);
    expect(plateMatcher(known, 2)('DG2Z8V')).to.deep.equal({ name: 'Amy', plate: 'DG2Z6U', distance: 2 });
  });

  it('a short read or a short known plate matches only exactly', () => {
    const match = plateMatcher(known, 1);
    expect(match('AB1')).to.deep.equal({ name: 'Short', plate: 'AB1', distance: 0 });
    expect(match('AB7')).to.equal(undefined);
    expect(match('AB17')).to.equal(undefined);
    expect(plateMatcher([{ plate: 'ABCD', name: 'Four' }], 1)('ABCE')).to.deep.equal({ name: 'Four', plate: 'ABCD', distance: 1 });
  });

  it('the nearest known plate wins; two different names equally near are no match, one name twice is', () => {
    const near = [
      { plate: 'ABC123', name: 'Amy' },
      { plate: 'ABC124', name: 'Ben' },
    ];
    expect(plateMatcher(near, 1)('ABC123')).to.deep.equal({ name: 'Amy', plate: 'ABC123', distance: 0 });
    expect(plateMatcher(near, 1)('ABC125')).to.equal(undefined);
    const sameName = [
      { plate: 'ABC123', name: 'Amy' },
      { plate: 'ABC124', name: 'Amy' },
    ];
    expect(plateMatcher(sameName, 1)('ABC125')).to.include({ name: 'Amy', distance: 1 });
  });
});
