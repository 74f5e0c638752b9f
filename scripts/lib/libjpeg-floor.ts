import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jpegTurbo from '@julusian/jpeg-turbo';
import { percentile } from './bench-numbers.js';

/**
 * The physical floor of a request (issue 20): libjpeg-turbo's own time to decode the upload at the
 * scale the service uses, and to encode what the service sends back, without anything of ours.
 */

/**
 * Milliseconds libjpeg-turbo takes to decode `jpeg` at 1/`denominator` of its size, as its own
 * benchmark `tjbench` (Debian: libjpeg-turbo-progs) measures it; undefined where tjbench is not
 * installed. Scaled decoding is not reachable from Node: no maintained binding exposes it.
 */
export function tjbenchDecodeMs(jpeg: Buffer, denominator: number, seconds: number): number | undefined {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-tjbench-'));
  try {
    const file = path.join(folder, 'image.jpg');
    fs.writeFileSync(file, jpeg);
    const run = spawnSync('tjbench', [file, '-scale', `1/${denominator}`, '-benchtime', String(seconds), '-warmup', '0.5', '-nowrite'], { encoding: 'utf8' });
    const frameRate = /Decompress\s+-->\s+Frame rate:\s+([\d.]+)\s+fps/.exec(run.stdout ?? '')?.[1];
    return frameRate ? 1000 / Number(frameRate) : undefined;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** One RGB region of an image: `pixels` starts at its first pixel, rows `rowPixels` apart. */
export interface EncodedRegion {
  readonly pixels: Buffer;
  readonly width: number;
  readonly height: number;
  readonly rowPixels: number;
}

/**
 * Median milliseconds libjpeg-turbo takes to encode every region once (quality 90, 4:2:0, as the
 * service does), each into an output buffer reused from run to run as tjbench does.
 */
export function libjpegEncodeMs(regions: readonly EncodedRegion[], runs = 9): number {
  const encoders = regions.map(({ pixels, width, height, rowPixels }) => {
    const options = { format: jpegTurbo.FORMAT_RGB, width, height, stride: rowPixels, quality: 90, subsampling: jpegTurbo.SAMP_420 };
    const output = Buffer.allocUnsafe(jpegTurbo.bufferSize(options));
    return () => jpegTurbo.compressSync(pixels, output, options);
  });
  const times: number[] = [];
  for (let run = 0; run <= runs; run++) {
    const started = performance.now();
    for (const encode of encoders) encode();
    if (run > 0) times.push(performance.now() - started); // the first run warms up
  }
  return percentile(times, 50);
}

/** Median milliseconds Node takes to decode `text` from base64: the JSON body's share of the floor. */
export function base64DecodeMs(text: string, runs = 9): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    Buffer.from(text, 'base64');
    times.push(performance.now() - started);
  }
  return percentile(times, 50);
}
