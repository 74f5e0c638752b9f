import net from 'node:net';
import { AccountError } from './account-error.js';

/** What "accept calls without a key" allows when it is turned on without a list: this machine only. */
export const LOOPBACK_RANGES: readonly string[] = ['127.0.0.0/8', '::1/128'];

/** An IPv4 address as IPv6 shows it (`::ffff:127.0.0.1`, how a dual-stack socket reports IPv4 peers). */
const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

function plainAddress(address: string): string {
  return IPV4_MAPPED.exec(address)?.[1] ?? address;
}

/**
 * A CIDR list as a person types it (commas, spaces or new lines between entries; a bare address
 * means just that address) → canonical `address/prefix` entries. Throws an AccountError naming the
 * first bad entry; an empty list is an error too, since "no address may call without a key" is
 * the switch being off.
 */
export function parseAddressRanges(text: string): string[] {
  const entries = text.split(/[\s,]+/).filter((entry) => entry !== '');
  if (entries.length === 0) throw new AccountError('invalid_address_range', 'give at least one address range, e.g. 127.0.0.0/8 or 192.168.1.0/24');
  return entries.map((entry) => {
    const [rawAddress, prefixText, ...rest] = entry.split('/');
    const address = plainAddress(rawAddress);
    const family = net.isIP(address);
    const maxPrefix = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? maxPrefix : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
    if (family === 0 || rest.length > 0 || !(prefix >= 0 && prefix <= maxPrefix)) {
      throw new AccountError('invalid_address_range', `"${entry.slice(0, 60)}" is not an address range; write it as address/prefix, e.g. 192.168.1.0/24 or fd00::/8`);
    }
    return `${address}/${prefix}`;
  });
}

/** Whether `address` (as a socket reports it) lies in one of the canonical `ranges`. */
export function inAddressRanges(address: string, ranges: readonly string[]): boolean {
  const list = new net.BlockList();
  for (const range of ranges) {
    const [network, prefix] = range.split('/');
    list.addSubnet(network, Number(prefix), net.isIP(network) === 4 ? 'ipv4' : 'ipv6');
  }
  const plain = plainAddress(address);
  const family = net.isIP(plain);
  return family !== 0 && list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}
