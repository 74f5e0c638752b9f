/**
 * Face detection AP as WIDER FACE scores it (../shared/eval/faces/README.md): a detection is
 * right when its IoU with a face is at least 0.5, one detection a face; faces marked `invalid`,
 * and faces outside the height band being scored, are neither rewarded nor counted as misses, and
 * a detection that matches one of them is not a false positive. A detection that matches no face
 * is a false positive unless its own height is outside the band (as COCO's area ranges treat
 * unmatched detections): a band's score is then about faces of that size only. AP is the area
 * under the interpolated precision–recall curve (every recall point, as VOC 2010 onwards).
 */

export interface WiderFace {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
  /** WIDER's `invalid` flag: never counted either way. */
  readonly invalid: boolean;
}

export interface WiderImage {
  /** Relative path under the dataset's `images/`. */
  readonly path: string;
  readonly faces: readonly WiderFace[];
}

export interface ScoredBox {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
  readonly score: number;
}

/** Faces with height in [min, max) pixels. */
export interface HeightBand {
  readonly label: string;
  readonly min: number;
  readonly max: number;
}

export const HEIGHT_BANDS: readonly HeightBand[] = [
  { label: '≥ 64 px', min: 64, max: Infinity },
  { label: '32–64 px', min: 32, max: 64 },
  { label: '16–32 px', min: 16, max: 32 },
  { label: '≥ 32 px', min: 32, max: Infinity },
  { label: '≥ 16 px', min: 16, max: Infinity },
];

/** Reads the official `wider_face_val_bbx_gt.txt` format: path, face count, one `x1 y1 w h blur expression illumination invalid occlusion pose` line a face (one zero line when the count is 0). */
export function parseWiderAnnotations(text: string): WiderImage[] {
  const lines = text.split('\n').map((line) => line.trim());
  const images: WiderImage[] = [];
  let at = 0;
  while (at < lines.length && lines[at] !== '') {
    const path = lines[at++];
    const count = Number(lines[at++]);
    if (!Number.isInteger(count) || count < 0) throw new Error(`annotations: bad face count after ${path}`);
    const faces: WiderFace[] = [];
    for (let i = 0; i < Math.max(count, 1); i++) {
      const values = lines[at++].split(/\s+/).map(Number);
      if (count === 0) continue;
      const [left, top, width, height, , , , invalid] = values;
      faces.push({ left, top, width, height, invalid: invalid === 1 });
    }
    images.push({ path, faces });
  }
  return images;
}

/** Intersection over union of an annotated face and a detected box. */
export function faceOverlap(face: WiderFace, box: Pick<ScoredBox, 'left' | 'top' | 'right' | 'bottom'>): number {
  const width = Math.min(face.left + face.width, box.right) - Math.max(face.left, box.left);
  const height = Math.min(face.top + face.height, box.bottom) - Math.max(face.top, box.top);
  if (width <= 0 || height <= 0) return 0;
  const intersection = width * height;
  return intersection / (face.width * face.height + (box.right - box.left) * (box.bottom - box.top) - intersection);
}

const inBand = (height: number, band: HeightBand) => height >= band.min && height < band.max;

export interface BandScore {
  readonly ap: number;
  /** Faces the band counts. */
  readonly faces: number;
}

/** AP of the detections (`detections[i]` for `images[i]`) over the faces of one height band. */
export function bandAveragePrecision(images: readonly WiderImage[], detections: readonly (readonly ScoredBox[])[], band: HeightBand): BandScore {
  const outcomes: { score: number; truePositive: boolean }[] = [];
  let facesCounted = 0;
  images.forEach((image, index) => {
    const ignored = image.faces.map((face) => face.invalid || !inBand(face.height, band));
    facesCounted += ignored.filter((flag) => !flag).length;
    const taken = new Array<boolean>(image.faces.length).fill(false);
    for (const box of [...detections[index]].sort((a, b) => b.score - a.score)) {
      // The best unmatched face at IoU ≥ 0.5, a counted face before an ignored one (as COCO's matcher).
      const bestOf = (wantIgnored: boolean) => {
        let best = -1;
        let bestIou = 0.5;
        for (const [faceIndex, face] of image.faces.entries()) {
          if (taken[faceIndex] || ignored[faceIndex] !== wantIgnored) continue;
          const overlap = faceOverlap(face, box);
          if (overlap >= bestIou) [best, bestIou] = [faceIndex, overlap];
        }
        return best;
      };
      const counted = bestOf(false);
      const match = counted >= 0 ? counted : bestOf(true);
      if (match >= 0) {
        taken[match] = true;
        if (!ignored[match]) outcomes.push({ score: box.score, truePositive: true });
      } else if (inBand(box.bottom - box.top, band)) {
        outcomes.push({ score: box.score, truePositive: false });
      }
    }
  });
  if (facesCounted === 0) return { ap: 0, faces: 0 };
  outcomes.sort((a, b) => b.score - a.score);
  const recall: number[] = [];
  const precision: number[] = [];
  let truePositives = 0;
  outcomes.forEach((outcome, rank) => {
    if (outcome.truePositive) truePositives++;
    recall.push(truePositives / facesCounted);
    precision.push(truePositives / (rank + 1));
  });
  // The precision envelope, then the area under it at every recall step.
  for (let i = precision.length - 2; i >= 0; i--) precision[i] = Math.max(precision[i], precision[i + 1]);
  let ap = 0;
  let previousRecall = 0;
  for (let i = 0; i < recall.length; i++) {
    ap += (recall[i] - previousRecall) * precision[i];
    previousRecall = recall[i];
  }
  return { ap, faces: facesCounted };
}
