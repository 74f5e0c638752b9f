import { expect } from 'chai';
import sharp from 'sharp';
import { assembleFoundResponse, type Naming } from '../src/tasks/found-response.js';
import { detectionDrawing, encodeVisualization } from '../src/vision/draw.js';
import type { RgbImage } from '../src/vision/image.js';

const GREY = 128;
const WIDTH = 800;
const HEIGHT = 600;

function greyImage(): RgbImage {
  return { width: WIDTH, height: HEIGHT, data: Buffer.alloc(WIDTH * HEIGHT * 3, GREY) };
}

async function rgbOfJpeg(base64Jpeg: string): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(Buffer.from(base64Jpeg, 'base64')).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

const hexRgb = (hex: string) => [1, 3, 5].map((offset) => parseInt(hex.slice(offset, offset + 2), 16));

describe('visualized image: outlines painted into the pixels, tags rendered at their own size', () => {
  const boxes = [
    { label: 'dog', confidence: 0.91, box: { left: 100, top: 200, right: 400, bottom: 500 } },
    // Touching the image's edges: clipped, never written outside the buffer.
    { label: 'truck', confidence: 0.73, box: { left: 0, top: 0, right: WIDTH, bottom: HEIGHT } },
  ];

  it('draws each outline in its colour on the box edge, leaves the inside of boxes untouched, and keeps the size', async () => {
    const drawing = detectionDrawing(WIDTH, HEIGHT, boxes);
    const jpeg = await encodeVisualization(greyImage(), boxes);
    const { data, width, height } = await rgbOfJpeg(jpeg);
    expect([width, height]).to.deep.equal([WIDTH, HEIGHT]);
    const pixel = (x: number, y: number) => [...data.subarray((y * WIDTH + x) * 3, (y * WIDTH + x) * 3 + 3)];
    // JPEG's halved chroma blurs a colour over 2 pixels: close, not exact.
    const near = (actual: number[], expected: number[]) => actual.every((value, channel) => Math.abs(value - expected[channel]) < 40);
    const dogColour = hexRgb(drawing.outlines[0].colour);
    // Just inside the left edge of the dog's box, half-way down, and the bottom edge, half-way across.
    expect(near(pixel(101, 350), dogColour), `left edge ${pixel(101, 350)} vs ${dogColour}`).to.equal(true);
    expect(near(pixel(250, 498), dogColour), `bottom edge ${pixel(250, 498)} vs ${dogColour}`).to.equal(true);
    expect(near(pixel(250, 350), [GREY, GREY, GREY]), 'inside the box').to.equal(true);
    // The whole-image box's outline runs along the border, the part of its line inside the image.
    const truckColour = hexRgb(drawing.outlines[1].colour);
    expect(near(pixel(WIDTH - 2, 300), truckColour), `right border ${pixel(WIDTH - 2, 300)} vs ${truckColour}`).to.equal(true);
    expect(near(pixel(400, HEIGHT - 2), truckColour), `bottom border ${pixel(400, HEIGHT - 2)} vs ${truckColour}`).to.equal(true);
  });

  it('fills each tag with its colour and writes its text in the contrasting colour over every line', async () => {
    const { tags } = detectionDrawing(WIDTH, HEIGHT, boxes);
    const { data } = await rgbOfJpeg(await encodeVisualization(greyImage(), boxes));
    for (const tag of tags) {
      const fill = hexRgb(tag.colour);
      let filled = 0;
      let text = 0;
      for (let y = tag.top + 2; y < tag.top + tag.height - 2; y++) {
        for (let x = tag.left + 2; x < tag.left + tag.width - 2; x++) {
          const at = (y * WIDTH + x) * 3;
          const distance = Math.abs(data[at] - fill[0]) + Math.abs(data[at + 1] - fill[1]) + Math.abs(data[at + 2] - fill[2]);
          if (distance < 40) filled++;
          else if (distance > 150) text++;
        }
      }
      const area = (tag.width - 4) * (tag.height - 4);
      expect(filled / area, `${tag.text}: share of the tag in its colour`).to.be.greaterThan(0.5);
      expect(text / area, `${tag.text}: share of the tag that is text`).to.be.within(0.05, 0.5);
    }
  });

  it('sizes each tag to hold its text in the tags\' font, capitals and digits of a plate as well as lower case, at every image size', async () => {
    const texts = ['YG9X2G 0.86', 'WWWWMMMM 0.99', 'person 0.93', 'illicit 0.50', 'Zoë, similarity 0.81'];
    for (const [width, height] of [[640, 480], [1920, 1080], [4000, 3000]]) {
      const drawing = detectionDrawing(width, height, texts.map((text) => ({ box: { left: 0.1, top: 0.4, right: 0.3, bottom: 0.5 }, label: text.slice(0, text.lastIndexOf(' ')), confidence: Number(text.slice(text.lastIndexOf(' ') + 1)) })));
      for (const tag of drawing.tags) {
        // The text as librsvg draws it in the tag (same font, size and left margin), trimmed to its ink: it must end inside the tag.
        const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${tag.width * 2}" height="${tag.height}"><rect width="100%" height="100%" fill="#fff"/><text x="${drawing.fontSize * 0.3}" y="${tag.height * 0.76}" font-family="DejaVu Sans, Arial, sans-serif" font-size="${drawing.fontSize}" font-weight="bold">${tag.text}</text></svg>`;
        const { info } = await sharp(Buffer.from(svg)).trim({ background: '#fff' }).toBuffer({ resolveWithObject: true });
        const inkRight = -(info.trimOffsetLeft ?? 0) + info.width;
        expect(inkRight, `${tag.text} at ${width}×${height}: ink ends at ${inkRight}, tag is ${tag.width} wide`).to.be.at.most(tag.width - 1);
        expect(inkRight, `${tag.text}: the tag is not far wider than its text`).to.be.at.least(tag.width - drawing.fontSize * 1.2);
      }
    }
  });

  it('draws nothing but encodes the image when there is no detection', async () => {
    const { data } = await rgbOfJpeg(await encodeVisualization(greyImage(), []));
    expect(data.every((value) => Math.abs(value - GREY) < 3)).to.equal(true);
  });
});

describe('visualized answer of an image task: a recognized face is tagged with how sure the name is, a region with its state', () => {
  const parameters = { confidenceThreshold: 0.5, outputCroppedImage: false, outputVisualizedImage: true };
  const face = { classIndex: 0, score: 0.99, box: { left: 100, top: 100, right: 300, bottom: 350 } };
  const answer = (naming: Naming & { state?: string }) => assembleFoundResponse({ width: WIDTH, height: HEIGHT, pixels: greyImage() }, [{ detection: face, naming }], parameters);
  const drawn = (label: string, confidence: number) => encodeVisualization(greyImage(), [{ box: face.box, label, confidence }]);

  it('"amy, similarity 0.84" (the match), not "amy 0.99" (the detector\'s confidence that it is a face); an unknown face says its number is the detector\'s: "unknown, face 0.99", a face compared with nobody "face 0.99"; an object keeps "dog 0.99"', async () => {
    const named = await answer({ name: 'amy', parent: 'face', similarity: 0.84 });
    expect(named.found[0].finding).to.include({ name: 'amy', confidence: 0.99, similarity: 0.84 });
    expect(named.visualized_image).to.equal(await drawn('amy, similarity', 0.84));
    expect(named.visualized_image).to.not.equal(await drawn('amy', 0.84));
    expect((await answer({ name: 'unknown', parent: 'face' })).visualized_image).to.equal(await drawn('unknown, face', 0.99));
    expect((await answer({ name: 'face', parent: 'face' })).visualized_image).to.equal(await drawn('face', 0.99));
    expect((await answer({ name: 'dog', parent: 'animal' })).visualized_image).to.equal(await drawn('dog', 0.99));
  });

  it('a region says its state: "gate: open 0.99", not "gate 0.99"', async () => {
    const region = await answer({ name: 'gate', parent: 'region', state: 'open' });
    expect(region.found[0].finding).to.include({ name: 'gate', state: 'open', confidence: 0.99 });
    expect(region.visualized_image).to.equal(await drawn('gate: open', 0.99));
    expect(region.visualized_image).to.not.equal(await drawn('gate', 0.99));
  });
});
