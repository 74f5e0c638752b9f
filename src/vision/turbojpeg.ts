import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Koffi from 'koffi';

/**
 * libjpeg-turbo's TurboJPEG 3 API, called through koffi (an FFI shipped prebuilt for each platform:
 * nothing compiles at install). It is the only JPEG decoder here that decodes at 1/2, 1/4 or 1/8 of
 * the size in the DCT domain straight into a buffer of ours, faster than libvips'
 * shrink-on-load (docs/performance.md); no prebuilt JPEG binding for Node exposes the scaling factors.
 *
 * The library is the one `@julusian/jpeg-turbo` (our JPEG encoder) ships on Linux, else the
 * system's. Where neither loads (or koffi has no binary for the platform), `turboJpeg` is
 * undefined and every image goes through libvips.
 */

/** TurboJPEG's constants used here (turbojpeg.h, API version 3). */
const TJINIT_DECOMPRESS = 1;
const TJPARAM_STOPONWARNING = 0;
const TJPARAM_JPEGWIDTH = 5;
const TJPARAM_JPEGHEIGHT = 6;
const TJPARAM_PRECISION = 7;
const TJPARAM_COLORSPACE = 8;
const TJPARAM_FASTDCT = 10;
const TJPARAM_PROGRESSIVE = 12;
const TJPARAM_LOSSLESS = 15;
const TJCS_RGB = 0;
const TJCS_YCbCr = 1;
const TJCS_GRAY = 2;
const TJPF_RGB = 0;

/** Handles kept for the next decode: one per decode running at once on libuv's pool (4 threads by default). */
const MAX_IDLE_HANDLES = 4;

type Handle = unknown;

/** What a JPEG's header says, read without decoding. */
export interface JpegHeader {
  readonly width: number;
  readonly height: number;
  readonly progressive: boolean;
  /**
   * 8-bit, lossy, and in a colour space that turns into RGB as it is (YCbCr, RGB or grey): what
   * `decode` takes. CMYK, YCCK, 12-bit and lossless JPEGs are libvips' to convert.
   */
  readonly decodable: boolean;
}

export interface TurboJpeg {
  /** Where the library was loaded from. */
  readonly library: string;
  /** The header of a JPEG (microseconds, on this thread), or undefined when libjpeg-turbo cannot read one. */
  readHeader(jpeg: Buffer): JpegHeader | undefined;
  /**
   * Decodes a JPEG at 1/`denominator` of its size (1, 2, 4 or 8; sides rounded up) as 8-bit RGB
   * into `into`, which must hold exactly that many pixels, on libuv's thread pool. Rejects on any
   * error or warning (a truncated or corrupt image).
   */
  decode(jpeg: Buffer, denominator: number, into: Buffer): Promise<void>;
}

const require = createRequire(import.meta.url);

/** Candidate library files, most specific first. */
function libraryCandidates(): string[] {
  const candidates: string[] = [];
  try {
    // The copy next to @julusian/jpeg-turbo's prebuilt binding (Linux builds link it dynamically).
    const packageDir = path.dirname(require.resolve('@julusian/jpeg-turbo/package.json'));
    const musl = !(process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
    const prebuild = `jpeg-turbo-${process.platform}-${process.arch}${process.platform === 'linux' && musl ? '-musl' : ''}`;
    candidates.push(path.join(packageDir, 'prebuilds', prebuild, 'libturbojpeg.so.0'));
  } catch {
    // Not installed: the system's library may still be there.
  }
  if (process.platform === 'darwin') candidates.push('libturbojpeg.0.dylib', 'libturbojpeg.dylib');
  else if (process.platform === 'win32') candidates.push('turbojpeg.dll');
  else candidates.push('libturbojpeg.so.0');
  return candidates;
}

function bind(koffi: typeof Koffi, library: string): TurboJpeg {
  const lib = koffi.load(library);
  // Each lookup throws where the library is TurboJPEG 2 (no tj3 functions): the caller tries the next one.
  const tj3Init = lib.func('void *tj3Init(int initType)');
  const tj3Destroy = lib.func('void tj3Destroy(void *handle)');
  const tj3Set = lib.func('int tj3Set(void *handle, int param, int value)');
  const tj3Get = lib.func('int tj3Get(void *handle, int param)');
  const tj3GetErrorStr = lib.func('const char *tj3GetErrorStr(void *handle)');
  const tj3DecompressHeader = lib.func('int tj3DecompressHeader(void *handle, const uint8_t *jpegBuf, size_t jpegSize)');
  const tj3SetScalingFactor = lib.func('int tj3SetScalingFactor(void *handle, tjscalingfactor scalingFactor)');
  const tj3Decompress8 = lib.func('int tj3Decompress8(void *handle, const uint8_t *jpegBuf, size_t jpegSize, uint8_t *dstBuf, int pitch, int pixelFormat)');

  const idle: Handle[] = [];
  const take = (): Handle => {
    const kept = idle.pop();
    if (kept) return kept;
    const handle = tj3Init(TJINIT_DECOMPRESS);
    if (!handle) throw new Error('libjpeg-turbo could not allocate a decompressor');
    // A corrupt or truncated image stops at the first warning, with its message (otherwise the
    // decode goes on over garbage and only the return value tells).
    tj3Set(handle, TJPARAM_STOPONWARNING, 1);
    // The fast integer IDCT at full size: less CPU, and the pixels the models were evaluated on
    // (the JPEG binding used before decoded with it; the accurate one scored lower AP:
    // docs/performance.md). Scaled decodes use their own reduced IDCTs, which this does not change.
    tj3Set(handle, TJPARAM_FASTDCT, 1);
    return handle;
  };
  const giveBack = (handle: Handle) => (idle.length < MAX_IDLE_HANDLES ? idle.push(handle) : tj3Destroy(handle));
  /** The error of the call that just failed on `handle` on this thread; the handle is destroyed, not kept. */
  const failure = (handle: Handle): Error => {
    const message = String(tj3GetErrorStr(handle));
    tj3Destroy(handle);
    return new Error(message);
  };

  return {
    library,
    readHeader(jpeg) {
      const handle = take();
      if (tj3DecompressHeader(handle, jpeg, jpeg.length) !== 0) {
        // Not a JPEG libjpeg-turbo can read: libvips gives the verdict. A failed handle is not kept.
        tj3Destroy(handle);
        return undefined;
      }
      const colorspace = tj3Get(handle, TJPARAM_COLORSPACE);
      const header = {
        width: tj3Get(handle, TJPARAM_JPEGWIDTH),
        height: tj3Get(handle, TJPARAM_JPEGHEIGHT),
        progressive: tj3Get(handle, TJPARAM_PROGRESSIVE) === 1,
        decodable:
          tj3Get(handle, TJPARAM_PRECISION) === 8 &&
          tj3Get(handle, TJPARAM_LOSSLESS) === 0 &&
          (colorspace === TJCS_YCbCr || colorspace === TJCS_RGB || colorspace === TJCS_GRAY),
      };
      giveBack(handle);
      return header;
    },
    async decode(jpeg, denominator, into) {
      const handle = take();
      // The header (microseconds, on this thread) first: the scaling factor is checked against it,
      // and the size it gives is checked against `into` before anything is written there.
      if (tj3DecompressHeader(handle, jpeg, jpeg.length) !== 0) throw failure(handle);
      if (tj3SetScalingFactor(handle, { num: 1, denom: denominator }) !== 0) throw failure(handle);
      const width = Math.ceil(tj3Get(handle, TJPARAM_JPEGWIDTH) / denominator);
      const height = Math.ceil(tj3Get(handle, TJPARAM_JPEGHEIGHT) / denominator);
      if (width * height * 3 !== into.length) {
        giveBack(handle);
        throw new RangeError(`a ${width}×${height} RGB image does not fill ${into.length} bytes`);
      }
      const status = await new Promise<number>((resolve, reject) => {
        tj3Decompress8.async(handle, jpeg, jpeg.length, into, 0, TJPF_RGB, (error: unknown, result: number) => (error ? reject(error) : resolve(result)));
      }).catch((error: unknown) => {
        tj3Destroy(handle);
        throw error;
      });
      if (status !== 0) {
        // libjpeg-turbo keeps this message per thread, and the decode ran on the pool's.
        tj3Destroy(handle);
        throw new Error('libjpeg-turbo could not decode the image (corrupt or truncated)');
      }
      giveBack(handle);
    },
  };
}

function loadTurboJpeg(): TurboJpeg | undefined {
  let koffi: typeof Koffi;
  try {
    // Loaded here, not imported: a platform koffi has no binary for still serves, through libvips.
    koffi = require('koffi') as typeof Koffi;
  } catch {
    return undefined;
  }
  // Declared by name for the prototypes (passed by value to tj3SetScalingFactor).
  koffi.struct('tjscalingfactor', { num: 'int', denom: 'int' });
  for (const library of libraryCandidates()) {
    try {
      return bind(koffi, library);
    } catch {
      // Absent, or too old for the tj3 API: try the next.
    }
  }
  return undefined;
}

/** The outcome of loading, once tried (a binding, or undefined where none loads). */
let loaded: { readonly binding: TurboJpeg | undefined } | undefined;

/**
 * TurboJPEG 3, or undefined where no usable library was found (libvips then decodes every JPEG).
 * Loaded on first use: a `detectd` command names the decoder through the task table but decodes
 * nothing. The server loads it at start-up (server.ts), before any request.
 */
export function turboJpeg(): TurboJpeg | undefined {
  loaded ??= { binding: loadTurboJpeg() };
  return loaded.binding;
}
