import { expect } from 'chai';
import { AccountError } from '../src/accounts/account-error.js';
import { inAddressRanges, parseAddressRanges } from '../src/accounts/address-ranges.js';

describe('keyless address ranges (CIDR lists typed on the service page)', () => {
  it('reads commas, spaces and new lines; a bare address is just that address', () => {
    expect(parseAddressRanges('192.168.1.0/24, 10.0.0.7\nfd00::/8  ::1')).to.deep.equal(['192.168.1.0/24', '10.0.0.7/32', 'fd00::/8', '::1/128']);
  });

  it('refuses anything that is not an address range, naming it', () => {
    for (const bad of ['192.168.1.0/33', '300.1.1.1', 'fd00::/129', 'example.com', '10.0.0.0/8/8', '10.0.0.0/x', '']) {
      expect(() => parseAddressRanges(bad), bad).to.throw(AccountError);
    }
    expect(() => parseAddressRanges('ok 192.168.1.0/24 nope')).to.throw(/"ok"/);
  });

  it('matches IPv4, IPv6 and IPv4 as a dual-stack socket reports it', () => {
    const ranges = parseAddressRanges('192.168.1.0/24 fd00::/8 127.0.0.1');
    expect(inAddressRanges('192.168.1.77', ranges)).to.equal(true);
    expect(inAddressRanges('::ffff:192.168.1.77', ranges)).to.equal(true);
    expect(inAddressRanges('192.168.2.1', ranges)).to.equal(false);
    expect(inAddressRanges('fd12:3456::1', ranges)).to.equal(true);
    expect(inAddressRanges('fe80::1', ranges)).to.equal(false);
    expect(inAddressRanges('127.0.0.1', ranges)).to.equal(true);
    expect(inAddressRanges('127.0.0.2', ranges)).to.equal(false);
    expect(inAddressRanges('', ranges)).to.equal(false);
  });
});
