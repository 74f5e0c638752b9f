/**
 * The metadata an Ultralytics ONNX export writes into the model file (exporter.py: every value is
 * `str()` of a Python value, so `names` is a dict literal like `{0: 'person', 1: 'bicycle'}` and
 * `imgsz` a list literal like `[640, 640]`). Absent keys stay undefined; malformed ones throw.
 */
export interface UltralyticsMetadata {
  /** `detect`, `segment`, `pose`, `obb`, `classify`, … */
  readonly task?: string;
  /** Class names in output order. */
  readonly names?: readonly string[];
  /** Input size as [height, width]. */
  readonly imgsz?: readonly [number, number];
  /** Largest stride of the network: input sides must be multiples of it. */
  readonly stride?: number;
}

export class MetadataError extends Error {}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };

/** Python's `str()` of a `dict[int, str]`: `{0: 'person', 1: "it's"}` → names by index. */
export function parsePythonNameDict(text: string): string[] {
  let position = 0;
  const fail = (what: string): never => {
    throw new MetadataError(`"names" is not a Python dict of class names (${what} at character ${position})`);
  };
  const skipSpaces = () => {
    while (/\s/.test(text[position] ?? '')) position++;
  };
  const expect = (character: string) => {
    skipSpaces();
    if (text[position] !== character) fail(`expected "${character}"`);
    position++;
  };
  const readString = (): string => {
    skipSpaces();
    const quote = text[position];
    if (quote !== "'" && quote !== '"') fail('expected a quoted name');
    position++;
    let value = '';
    while (text[position] !== quote) {
      if (position >= text.length) fail('unterminated string');
      if (text[position] !== '\\') {
        value += text[position++];
        continue;
      }
      const escape = text[position + 1];
      const hex = escape === 'x' ? 2 : escape === 'u' ? 4 : escape === 'U' ? 8 : 0;
      if (hex > 0) {
        const code = Number.parseInt(text.slice(position + 2, position + 2 + hex), 16);
        if (!Number.isFinite(code)) fail('bad escape');
        value += String.fromCodePoint(code);
        position += 2 + hex;
      } else {
        if (!(escape in ESCAPES)) fail('unknown escape');
        value += ESCAPES[escape];
        position += 2;
      }
    }
    position++;
    return value;
  };

  const names: string[] = [];
  expect('{');
  skipSpaces();
  while (text[position] !== '}') {
    skipSpaces();
    const digits = /^\d+/.exec(text.slice(position))?.[0] ?? fail('expected a class index');
    position += digits.length;
    if (Number(digits) !== names.length) fail(`class indexes must run 0, 1, 2, … without gaps; found ${digits} where ${names.length} was due`);
    expect(':');
    names.push(readString());
    skipSpaces();
    if (text[position] === ',') position++;
    else if (text[position] !== '}') fail('expected "," or "}"');
    skipSpaces();
  }
  position++;
  skipSpaces();
  if (position !== text.length) fail('unexpected text after the dict');
  return names;
}

function parseImgsz(text: string): [number, number] {
  const sides = /^\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]\s*$/.exec(text) ?? /^\s*(\d+)\s*$/.exec(text);
  if (!sides) throw new MetadataError(`"imgsz" must be "[height, width]" or one number, got "${text}"`);
  const height = Number(sides[1]);
  return [height, Number(sides[2] ?? height)];
}

function parseStride(text: string): number {
  const stride = Number(text);
  if (!Number.isInteger(stride) || stride <= 0) throw new MetadataError(`"stride" must be a positive integer, got "${text}"`);
  return stride;
}

export function readUltralyticsMetadata(metadata: ReadonlyMap<string, string>): UltralyticsMetadata {
  const names = metadata.get('names');
  const imgsz = metadata.get('imgsz');
  const stride = metadata.get('stride');
  return {
    task: metadata.get('task')?.trim(),
    names: names === undefined ? undefined : parsePythonNameDict(names),
    imgsz: imgsz === undefined ? undefined : parseImgsz(imgsz),
    stride: stride === undefined ? undefined : parseStride(stride),
  };
}
