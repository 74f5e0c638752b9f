import type { Box, RgbImage } from './image.js';
import { encodeJpeg, pixelRegion, rawPipeline } from './encode.js';
import { placeLabels } from './label-placement.js';

export interface LabelledBox {
  readonly box: Box;
  readonly label: string;
  readonly confidence: number;
}

/** Distinct, saturated colours that stay visible on most photos; white or black text is chosen per colour. */
const PALETTE = ['#FF3838', '#2C99A8', '#FF9D97', '#00C2FF', '#FFB21D', '#344593', '#CFD231', '#6473FF', '#48F90A', '#FF37C7', '#92CC17', '#FF701F', '#3DDB86', '#8438FF', '#1A9334', '#520085', '#00D4BB', '#CB38FF', '#FF95C8', '#FFB2A0'];

function colourFor(label: string): string {
  let hash = 0;
  for (const character of label) hash = (hash * 31 + character.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}

function textColourOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((offset) => parseInt(hex.slice(offset, offset + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#000000' : '#FFFFFF';
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * An SVG overlay with each box outlined and a filled tag "label 0.93" by it, placed so that no
 * tag covers another (label-placement.ts); tags are drawn after every outline, so no line crosses
 * a tag's text. Line and text sizes scale with the image so they stay legible.
 */
export function detectionOverlay(width: number, height: number, boxes: readonly LabelledBox[]): string {
  const unit = Math.max(1, Math.round(Math.max(width, height) / 400));
  const fontSize = 7 * unit + 5;
  const stroke = unit + 1;
  const tagHeight = Math.round(fontSize * 1.35);
  const drawn = boxes.map(({ box, label, confidence }) => {
    const text = `${label} ${confidence.toFixed(2)}`;
    return { region: pixelRegion(box, width, height), colour: colourFor(label), text, tagWidth: Math.round(fontSize * 0.62 * text.length + fontSize * 0.6) };
  });
  const tags = placeLabels(
    { width, height },
    drawn.map(({ region, tagWidth }) => ({ box: region, tag: { width: tagWidth, height: tagHeight } })),
  );
  const outlines = drawn.map(
    ({ region, colour }) => `<rect x="${region.left}" y="${region.top}" width="${region.width}" height="${region.height}" fill="none" stroke="${colour}" stroke-width="${stroke}"/>`,
  );
  const labels = drawn.map(({ colour, text }, index) => {
    const tag = tags[index];
    return (
      `<rect class="tag" x="${tag.left}" y="${tag.top}" width="${tag.width}" height="${tag.height}" fill="${colour}"/>` +
      `<text x="${tag.left + fontSize * 0.3}" y="${tag.top + tagHeight * 0.76}" fill="${textColourOn(colour)}">${escapeXml(text)}</text>`
    );
  });
  const shapes = [...outlines, ...labels];
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<g font-family="DejaVu Sans, Arial, sans-serif" font-size="${fontSize}" font-weight="bold">${shapes.join('')}</g></svg>`
  );
}

/** The whole image with every detection drawn on it, as a JPEG of the same size. */
export function encodeVisualization(image: RgbImage, boxes: readonly LabelledBox[]): Promise<Buffer> {
  const overlay = Buffer.from(detectionOverlay(image.width, image.height, boxes));
  return encodeJpeg(rawPipeline(image).composite([{ input: overlay, top: 0, left: 0 }]));
}
