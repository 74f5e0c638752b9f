import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const CLIP_SIZE = { width: 640, height: 480 };
export const CLIP_FPS = 30;

export interface PanClip {
  /** The clip's frames as JPEG files' bytes, in order. */
  readonly frames: Buffer[];
  /** The same clip as a VP8 WebM (plays in Debian's Chromium, unlike H.264). */
  readonly webmPath: string;
  remove(): void;
}

/**
 * A 640×480 camera pan over a real photo of at least 768×576 (the tests use dog.jpg), made with
 * ffmpeg into a temporary folder: the view drifts right and down by up to 128×96 pixels and back,
 * so the objects move across the frame as in a hand-held video. Used by the stream tests and
 * the stream benchmark.
 */
export async function makePanClip(photo: string, seconds = 3): Promise<PanClip> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-clip-'));
  const pan = `crop=${CLIP_SIZE.width}:${CLIP_SIZE.height}:'64*(1-cos(2*PI*t/${seconds}))':'48*(1-cos(2*PI*t/${seconds}))'`;
  const input = ['-hide_banner', '-loglevel', 'error', '-loop', '1', '-framerate', String(CLIP_FPS), '-i', photo, '-vf', pan, '-frames:v', String(seconds * CLIP_FPS)];
  const webmPath = path.join(directory, 'pan.webm');
  await Promise.all([
    run('ffmpeg', [...input, '-q:v', '4', path.join(directory, 'frame-%04d.jpg')]),
    run('ffmpeg', [...input, '-c:v', 'libvpx', '-b:v', '4M', '-qmin', '2', '-qmax', '12', '-deadline', 'realtime', '-cpu-used', '8', webmPath]),
  ]);
  const frames = fs
    .readdirSync(directory)
    .filter((file) => file.endsWith('.jpg'))
    .sort()
    .map((file) => fs.readFileSync(path.join(directory, file)));
  return { frames, webmPath, remove: () => fs.rmSync(directory, { recursive: true, force: true }) };
}
