/**
 * What a JPEG's marker segments say before any pixel is decoded: how many scans it has and its EXIF
 * orientation. Read by walking the segments, every offset checked against the buffer's end, so a
 * truncated or hostile file only ends the walk early.
 */

/** A marker and where its segment's payload starts and ends (after the 2-byte length). */
interface Segment {
  readonly marker: number;
  readonly start: number;
  readonly end: number;
}

const SOS = 0xda;
const EOI = 0xd9;
const APP1 = 0xe1;

/** The marker segments of `bytes` in order, stepping over each scan's entropy-coded data. */
function* segments(bytes: Buffer): Generator<Segment> {
  let at = 2; // after SOI
  while (at + 1 < bytes.length) {
    if (bytes[at] !== 0xff) {
      at++; // entropy-coded data of the current scan
      continue;
    }
    const marker = bytes[at + 1];
    // Fill byte, stuffed zero, restart markers, TEM: no length follows.
    if (marker === 0xff) at++;
    else if (marker === 0x00 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) at += 2;
    else if (marker === EOI || at + 3 >= bytes.length) return; // EOI, or a truncated segment
    else {
      const end = Math.min(bytes.length, at + 2 + bytes.readUInt16BE(at + 2));
      yield { marker, start: at + 4, end };
      at = end;
    }
  }
}

/** Start-of-scan markers in a JPEG, counted up to just past `max`. */
export function jpegScanCount(bytes: Buffer, max: number): number {
  let scans = 0;
  for (const { marker } of segments(bytes)) {
    if (marker === SOS && ++scans > max) break;
  }
  return scans;
}

const EXIF_HEADER = Buffer.from('Exif\0\0', 'latin1');
const ORIENTATION_TAG = 0x0112;
const SHORT_TYPE = 3;

/**
 * The EXIF orientation (1–8) of a JPEG, from the first Exif APP1 segment's first image directory; 1
 * when there is none or it cannot be read — as libvips reads it.
 */
export function jpegOrientation(bytes: Buffer): number {
  for (const { marker, start, end } of segments(bytes)) {
    if (marker === SOS) break; // EXIF comes before the first scan
    if (marker !== APP1 || end - start < 14 || !bytes.subarray(start, start + 6).equals(EXIF_HEADER)) continue;
    const tiff = start + 6;
    const order = bytes.toString('latin1', tiff, tiff + 2);
    if (order !== 'II' && order !== 'MM') return 1;
    const little = order === 'II';
    const u16 = (at: number) => (little ? bytes.readUInt16LE(at) : bytes.readUInt16BE(at));
    const u32 = (at: number) => (little ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at));
    const directory = tiff + u32(tiff + 4);
    if (directory + 2 > end) return 1;
    const entries = u16(directory);
    for (let index = 0; index < entries; index++) {
      const entry = directory + 2 + index * 12;
      if (entry + 12 > end) return 1;
      if (u16(entry) !== ORIENTATION_TAG) continue;
      const value = u16(entry + 2) === SHORT_TYPE ? u16(entry + 8) : 0;
      return value >= 1 && value <= 8 ? value : 1;
    }
    return 1;
  }
  return 1;
}
