/**
 * COCO-style bounding-box mAP, a port of pycocotools' COCOeval (iouType "bbox")
 * restricted to maxDets = 100: evaluate() + accumulate() + the maxDets-100 rows
 * of summarize(). Every ordering, tie-break and comparison follows the Python
 * original so that numbers agree with it to floating-point noise.
 */

/** [x, y, width, height] in pixels. */
export type BBox = [number, number, number, number];

export interface CocoImage {
  id: number;
  file_name: string;
  width?: number;
  height?: number;
}

export interface CocoAnnotation {
  id: number;
  image_id: number;
  category_id: number;
  bbox: BBox;
  /** Object area (segment area in official COCO); used for the small/medium/large ranges. */
  area?: number;
  iscrowd?: number | boolean;
}

export interface CocoCategory {
  id: number;
  name: string;
  supercategory?: string;
}

export interface CocoDataset {
  images: CocoImage[];
  annotations: CocoAnnotation[];
  categories: CocoCategory[];
}

export interface Detection {
  image_id: number;
  category_id: number;
  bbox: BBox;
  score: number;
}

/**
 * Fractions in 0..1, or -1 where no category has a non-ignored ground truth
 * (pycocotools prints -1 there too).
 */
export interface CocoMetrics {
  AP: number;
  AP50: number;
  AP75: number;
  APs: number;
  APm: number;
  APl: number;
  AR100: number;
}

const MAX_DETECTIONS = 100;

/** np.linspace(start, stop, num): i * step + start, with the last value pinned to stop. */
function linspace(start: number, stop: number, num: number): number[] {
  const step = (stop - start) / (num - 1);
  return Array.from({ length: num }, (_, i) => (i === num - 1 ? stop : i * step + start));
}

const IOU_THRESHOLDS = linspace(0.5, 0.95, 10);
const RECALL_THRESHOLDS = linspace(0, 1, 101);
const IOU_50_INDEX = 0;
const IOU_75_INDEX = 5;

type AreaRange = readonly [number, number];
const AREA_ALL: AreaRange = [0, 1e5 ** 2];
const AREA_SMALL: AreaRange = [0, 32 ** 2];
const AREA_MEDIUM: AreaRange = [32 ** 2, 96 ** 2];
const AREA_LARGE: AreaRange = [96 ** 2, 1e5 ** 2];
const AREA_RANGES = [AREA_ALL, AREA_SMALL, AREA_MEDIUM, AREA_LARGE] as const;

interface GroundTruth {
  bbox: BBox;
  area: number;
  isCrowd: boolean;
}

interface ScoredDetection {
  bbox: BBox;
  area: number;
  score: number;
}

/** evaluateImg() output for one image × category × area range. */
interface ImageCategoryResult {
  /** Detection scores, highest first (at most MAX_DETECTIONS). */
  scores: number[];
  /** [iouThreshold][detection]: matched to some ground truth. */
  matched: boolean[][];
  /** [iouThreshold][detection]: matched to an ignored gt, or unmatched and outside the area range. */
  ignored: boolean[][];
  /** Ground truths that count towards recall (not crowd, inside the area range). */
  relevantGroundTruths: number;
}

/** maskApi.c bbIou: plain IoU, or intersection over detection area for crowd regions. */
function boxOverlap(detection: BBox, groundTruth: BBox, isCrowd: boolean): number {
  const [dx, dy, dw, dh] = detection;
  const [gx, gy, gw, gh] = groundTruth;
  const width = Math.min(dw + dx, gw + gx) - Math.max(dx, gx);
  if (width <= 0) return 0;
  const height = Math.min(dh + dy, gh + gy) - Math.max(dy, gy);
  if (height <= 0) return 0;
  const intersection = width * height;
  const detectionArea = dw * dh;
  const union = isCrowd ? detectionArea : detectionArea + gw * gh - intersection;
  return intersection / union;
}

function outside(area: number, range: AreaRange): boolean {
  return area < range[0] || area > range[1];
}

/** Stable sort, highest score first: np.argsort(-score, kind='mergesort'). */
function byScoreDescending<T extends { score: number }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => b.score - a.score);
}

/**
 * evaluateImg(): greedy matching of score-sorted detections to ground truths
 * (ignored ones last) at every IoU threshold. `overlaps[d][g]` is indexed by the
 * caller's gt order, which this function reorders like pycocotools does.
 */
function evaluateImageCategory(
  groundTruths: readonly GroundTruth[],
  detections: readonly ScoredDetection[],
  overlaps: readonly number[][],
  areaRange: AreaRange,
): ImageCategoryResult {
  const gtIgnored = groundTruths.map((gt) => gt.isCrowd || outside(gt.area, areaRange));
  // Stable argsort on the ignore flag: regular ground truths first, original order kept.
  const gtOrder = groundTruths.map((_, index) => index).sort((a, b) => Number(gtIgnored[a]) - Number(gtIgnored[b]));

  const results: ImageCategoryResult = {
    scores: detections.map((detection) => detection.score),
    matched: [],
    ignored: [],
    relevantGroundTruths: gtIgnored.filter((ignored) => !ignored).length,
  };
  for (const threshold of IOU_THRESHOLDS) {
    const gtTaken = new Array<boolean>(groundTruths.length).fill(false);
    const matched = new Array<boolean>(detections.length).fill(false);
    const ignored = new Array<boolean>(detections.length).fill(false);
    detections.forEach((detection, d) => {
      let bestOverlap = Math.min(threshold, 1 - 1e-10);
      let best = -1;
      for (const g of gtOrder) {
        // A regular gt is matched at most once; a crowd region absorbs any number of detections.
        if (gtTaken[g] && !groundTruths[g].isCrowd) continue;
        // Once matched to a regular gt, never trade it for an ignored one (those are sorted last).
        if (best > -1 && !gtIgnored[best] && gtIgnored[g]) break;
        if (overlaps[d][g] < bestOverlap) continue;
        bestOverlap = overlaps[d][g];
        best = g;
      }
      if (best > -1) {
        matched[d] = true;
        ignored[d] = gtIgnored[best];
        gtTaken[best] = true;
      } else {
        ignored[d] = outside(detection.area, areaRange);
      }
    });
    results.matched.push(matched);
    results.ignored.push(ignored);
  }
  return results;
}

interface CategoryCurve {
  /** [iouThreshold][recallThreshold] interpolated precision. */
  precision: number[][];
  /** [iouThreshold] recall reached with all detections. */
  recall: number[];
}

/** accumulate() for one category and area range; null when it has no relevant ground truth. */
function accumulateCategory(perImage: readonly ImageCategoryResult[]): CategoryCurve | null {
  const relevantGroundTruths = perImage.reduce((sum, image) => sum + image.relevantGroundTruths, 0);
  if (relevantGroundTruths === 0) return null;

  // Concatenate images in image-id order, then a stable sort by score across images.
  const pooled = perImage.flatMap((image, i) => image.scores.map((score, d) => ({ score, image: i, d })));
  const ranked = byScoreDescending(pooled);

  const curve: CategoryCurve = { precision: [], recall: [] };
  IOU_THRESHOLDS.forEach((_, t) => {
    const recallAt: number[] = [];
    const precisionAt: number[] = [];
    let truePositives = 0;
    let falsePositives = 0;
    for (const { image, d } of ranked) {
      // Ignored detections count as neither, but still occupy a rank, as in pycocotools.
      if (!perImage[image].ignored[t][d]) {
        if (perImage[image].matched[t][d]) truePositives++;
        else falsePositives++;
      }
      recallAt.push(truePositives / relevantGroundTruths);
      precisionAt.push(truePositives / (falsePositives + truePositives + Number.EPSILON));
    }
    curve.recall.push(recallAt.length > 0 ? recallAt[recallAt.length - 1] : 0);

    // Monotone envelope: precision at rank i is the best precision at any later rank.
    for (let i = precisionAt.length - 1; i > 0; i--) {
      if (precisionAt[i] > precisionAt[i - 1]) precisionAt[i - 1] = precisionAt[i];
    }
    // np.searchsorted(recall, thresholds, 'left'); thresholds beyond the reached recall get 0.
    let rank = 0;
    curve.precision.push(
      RECALL_THRESHOLDS.map((threshold) => {
        while (rank < recallAt.length && recallAt[rank] < threshold) rank++;
        return rank < recallAt.length ? precisionAt[rank] : 0;
      }),
    );
  });
  return curve;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? -1 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Evaluates detections against a COCO annotation set; see CocoMetrics. */
export function evaluateDetections(dataset: CocoDataset, detections: readonly Detection[]): CocoMetrics {
  const imageIds = [...new Set(dataset.images.map((image) => image.id))].sort((a, b) => a - b);
  const categoryIds = [...new Set(dataset.categories.map((category) => category.id))].sort((a, b) => a - b);
  const knownImages = new Set(imageIds);
  const knownCategories = new Set(categoryIds);

  const key = (imageId: number, categoryId: number): string => `${imageId}/${categoryId}`;
  const groundTruthsByKey = new Map<string, GroundTruth[]>();
  const detectionsByKey = new Map<string, ScoredDetection[]>();
  const push = <T>(map: Map<string, T[]>, k: string, item: T): void => {
    const list = map.get(k);
    if (list) list.push(item);
    else map.set(k, [item]);
  };

  for (const annotation of dataset.annotations) {
    if (!knownImages.has(annotation.image_id) || !knownCategories.has(annotation.category_id)) continue;
    const [, , width, height] = annotation.bbox;
    push(groundTruthsByKey, key(annotation.image_id, annotation.category_id), {
      bbox: annotation.bbox,
      area: annotation.area ?? width * height,
      isCrowd: Boolean(annotation.iscrowd),
    });
  }
  for (const detection of detections) {
    // pycocotools' loadRes asserts this; a detection on an unknown image is a caller bug.
    if (!knownImages.has(detection.image_id)) {
      throw new Error(`detection for image ${detection.image_id}, which is not in the annotation set`);
    }
    if (!knownCategories.has(detection.category_id)) continue;
    const [, , width, height] = detection.bbox;
    push(detectionsByKey, key(detection.image_id, detection.category_id), {
      bbox: detection.bbox,
      area: width * height,
      score: detection.score,
    });
  }

  // curves[areaRange] holds one entry per category that has relevant ground truth.
  const curves: CategoryCurve[][] = AREA_RANGES.map(() => []);
  for (const categoryId of categoryIds) {
    const perImage: ImageCategoryResult[][] = AREA_RANGES.map(() => []);
    for (const imageId of imageIds) {
      const groundTruths = groundTruthsByKey.get(key(imageId, categoryId)) ?? [];
      const allDetections = detectionsByKey.get(key(imageId, categoryId)) ?? [];
      if (groundTruths.length === 0 && allDetections.length === 0) continue;
      // The per-image cap applies per category, before matching.
      const kept = byScoreDescending(allDetections).slice(0, MAX_DETECTIONS);
      const overlaps = kept.map((detection) => groundTruths.map((gt) => boxOverlap(detection.bbox, gt.bbox, gt.isCrowd)));
      AREA_RANGES.forEach((range, a) => perImage[a].push(evaluateImageCategory(groundTruths, kept, overlaps, range)));
    }
    perImage.forEach((images, a) => {
      const curve = accumulateCategory(images);
      if (curve) curves[a].push(curve);
    });
  }

  const averagePrecision = (area: number, iouIndex?: number): number =>
    mean(
      curves[area].flatMap((curve) =>
        (iouIndex === undefined ? curve.precision : [curve.precision[iouIndex]]).flat(),
      ),
    );
  return {
    AP: averagePrecision(0),
    AP50: averagePrecision(0, IOU_50_INDEX),
    AP75: averagePrecision(0, IOU_75_INDEX),
    APs: averagePrecision(1),
    APm: averagePrecision(2),
    APl: averagePrecision(3),
    AR100: mean(curves[0].flatMap((curve) => curve.recall)),
  };
}
