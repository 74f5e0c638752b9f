import type { Box, RgbImage } from './image.js';
import { encodeJpeg, pixelRegion } from './encode.js';
import { placeLabels, type Rect } from './label-placement.js';
import { loadSharp } from './sharp.js';
import { tagTextWidth } from './tag-text-width.js';

export interface LabelledBox {
  readonly box: Box;
  readonly label: string;
  readonly confidence: number;
}

/** Distinct, saturated colours that stay visible on most photos; white or black text is chosen per colour. */
const PALETTE = ['#FF3838', '#2C99A8', '#FF9D97', '#00C2FF', '#FFB21D', '#344593', '#CFD231', '#6473FF', '#48F90A', '#FF37C7', '#92CC17', '#FF701F', '#3DDB86', '#8438FF', '#1A9334', '#520085', '#00D4BB', '#CB38FF', '#FF95C8', '#FFB2A0'];

type Rgb = readonly [number, number, number];

function colourFor(label: string): string {
  let hash = 0;
  for (const character of label) hash = (hash * 31 + character.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}

const rgbOf = (hex: string): Rgb => [1, 3, 5].map((offset) => parseInt(hex.slice(offset, offset + 2), 16)) as unknown as Rgb;

function textColourOn(hex: string): string {
  const [r, g, b] = rgbOf(hex);
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#000000' : '#FFFFFF';
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** One box's outline: its pixel rectangle, colour and line width. */
export interface Outline {
  readonly region: Rect;
  readonly colour: string;
  readonly stroke: number;
}

/** One filled tag "label 0.93", placed where it covers no other tag. */
export interface Tag extends Rect {
  readonly colour: string;
  readonly text: string;
}

export interface DetectionDrawing {
  readonly outlines: readonly Outline[];
  readonly tags: readonly Tag[];
  readonly fontSize: number;
}

/**
 * What the visualized image shows: each box outlined, and a filled tag "label 0.93" by it, placed
 * so that no tag covers another (label-placement.ts). Line and text sizes scale with the image so
 * they stay legible.
 */
export function detectionDrawing(width: number, height: number, boxes: readonly LabelledBox[]): DetectionDrawing {
  const unit = Math.max(1, Math.round(Math.max(width, height) / 400));
  const fontSize = 7 * unit + 5;
  const stroke = unit + 1;
  const tagHeight = Math.round(fontSize * 1.35);
  const drawn = boxes.map(({ box, label, confidence }) => {
    const text = `${label} ${confidence.toFixed(2)}`;
    return { region: pixelRegion(box, width, height), colour: colourFor(label), text, tagWidth: Math.ceil(fontSize * (tagTextWidth(text) + 0.6)) };
  });
  const places = placeLabels(
    { width, height },
    drawn.map(({ region, tagWidth }) => ({ box: region, tag: { width: tagWidth, height: tagHeight } })),
  );
  return {
    outlines: drawn.map(({ region, colour }) => ({ region, colour, stroke })),
    tags: drawn.map(({ colour, text }, index) => ({ ...places[index], colour, text })),
    fontSize,
  };
}

/** Paints a rectangle's pixels, clipped to the image. */
function fillRect(image: RgbImage, left: number, top: number, width: number, height: number, [r, g, b]: Rgb): void {
  const x0 = Math.max(0, left);
  const y0 = Math.max(0, top);
  const x1 = Math.min(image.width, left + width);
  const y1 = Math.min(image.height, top + height);
  const { data } = image;
  for (let y = y0; y < y1; y++) {
    for (let at = (y * image.width + x0) * 3, end = (y * image.width + x1) * 3; at < end; at += 3) {
      data[at] = r;
      data[at + 1] = g;
      data[at + 2] = b;
    }
  }
}

/** The outline's four sides, drawn just inside its region, so a box along the image's edge keeps its whole line. */
function strokeOutline(image: RgbImage, { region, colour, stroke }: Outline): void {
  const rgb = rgbOf(colour);
  const { left, top, width, height } = region;
  fillRect(image, left, top, width, stroke, rgb);
  fillRect(image, left, top + height - stroke, width, stroke, rgb);
  fillRect(image, left, top, stroke, height, rgb);
  fillRect(image, left + width - stroke, top, stroke, height, rgb);
}

/**
 * Every tag, stacked one under another in one SVG as tall as their heights together: one
 * rendering for all tags (librsvg's start costs more than a small tag's pixels).
 */
function tagSheetSvg(tags: readonly Tag[], fontSize: number): { svg: Buffer; offsets: number[] } {
  const width = Math.max(...tags.map((tag) => tag.width));
  const offsets: number[] = [];
  let height = 0;
  const parts = tags.map((tag) => {
    offsets.push(height);
    const part =
      `<rect y="${height}" width="${tag.width}" height="${tag.height}" fill="${tag.colour}"/>` +
      `<text x="${fontSize * 0.3}" y="${height + tag.height * 0.76}" fill="${textColourOn(tag.colour)}">${escapeXml(tag.text)}</text>`;
    height += tag.height;
    return part;
  });
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<g font-family="DejaVu Sans, Arial, sans-serif" font-size="${fontSize}" font-weight="bold">${parts.join('')}</g></svg>`;
  return { svg: Buffer.from(svg), offsets };
}

/** Copies each tag's rows from the rendered sheet into the image at the tag's place, clipped to the image. */
async function drawTags(image: RgbImage, tags: readonly Tag[], fontSize: number): Promise<void> {
  if (tags.length === 0) return;
  const { svg, offsets } = tagSheetSvg(tags, fontSize);
  const sharp = await loadSharp();
  const { data: sheet, info } = await sharp(svg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  tags.forEach((tag, index) => {
    const left = Math.max(0, tag.left);
    const right = Math.min(image.width, tag.left + tag.width);
    if (right <= left) return;
    for (let row = 0; row < tag.height; row++) {
      const y = tag.top + row;
      if (y < 0 || y >= image.height) continue;
      const from = ((offsets[index] + row) * info.width + (left - tag.left)) * 3;
      sheet.copy(image.data, (y * image.width + left) * 3, from, from + (right - left) * 3);
    }
  });
}

/**
 * The whole image with every detection drawn on it, as a base64 JPEG of the same size. Outlines are
 * painted straight into `image`'s pixels (its caller must need them no more), then the tags
 * over them, so no line crosses a tag's text. A 12 MP photo is never overlaid with a 12 MP
 * vector canvas: only the tags are rendered.
 */
export async function encodeVisualization(image: RgbImage, boxes: readonly LabelledBox[]): Promise<string> {
  const drawing = detectionDrawing(image.width, image.height, boxes);
  for (const outline of drawing.outlines) strokeOutline(image, outline);
  await drawTags(image, drawing.tags, drawing.fontSize);
  return encodeJpeg(image);
}
