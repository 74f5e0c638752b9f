import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { expect } from 'chai';
import sharp, { type Region } from 'sharp';
import type * as FaceApi from '@vladmandic/face-api/dist/face-api.node-wasm.js';
import { fivePointsOf68 } from '../src/models/five-points.js';
import type { FaceLandmarkSummary } from '../src/models/runtimes/tfjs/face-landmark-net.js';
import { loadWorkerModel as loadLandmarkNet } from '../src/models/runtimes/tfjs/face-landmark-net.js';
import { loadWorkerModel as loadRecognitionNet } from '../src/models/runtimes/tfjs/face-recognition-net.js';
import { packageFile } from '../src/models/runtimes/tfjs/tfjs-backend.js';
import type { FaceRecognitionSummary } from '../src/models/runtimes/tfjs/face-recognition-net.js';
import type { WorkerModel } from '../src/models/runtimes/threaded-detector-protocol.js';
import { startThreadedModel } from '../src/models/runtimes/threaded-model.js';
import { moduleUrl } from '../src/models/runtimes/worker-thread.js';
import { decodeImage } from '../src/vision/decode.js';
import type { RgbImage } from '../src/vision/image.js';
import { cropPath, FACES_DIR, GROUP_PHOTOS } from './support/faces.js';
import { valueDifferences } from './support/value-differences.js';

const require = createRequire(import.meta.url);
const PEOPLE = ['amy', 'bernadette', 'howard', 'leonard', 'penny', 'raj', 'sheldon', 'stuart'];

const decode = (file: string) => decodeImage(fs.readFileSync(file), { maxPixels: 40e6 });

/** `image` cut to `box` (left, top, width, height) and resized to `size` (sharp, Lanczos), as RGB. */
async function reshaped(image: RgbImage, box: Region, size: { width: number; height?: number }): Promise<RgbImage> {
  const { data, info } = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .extract(box)
    .resize({ ...size, fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/**
 * Our networks (the describer as an ONNX graph on ONNX Runtime, the landmark net on TF.js-core) against face-api's own (`@vladmandic/face-api`'s node-wasm build, on
 * the same tfjs-core and wasm backend, in this process): the same image in, the same numbers out.
 * Faces are the crops of ../shared/eval/faces and the faces face-api's SSD finds in its group photos.
 */
describe('face networks against face-api itself (dlib ResNet descriptor, 68-point landmarks)', function () {
  this.timeout(600_000);
  let faceapi: typeof FaceApi;
  let describer: WorkerModel<FaceRecognitionSummary>;
  let landmarks: WorkerModel<FaceLandmarkSummary>;
  /** The faces face-api's SSD finds in the group photos, each cut out at its box (clipped to the photo, whole pixels). */
  const groupFaces: RgbImage[] = [];
  const crops: RgbImage[] = [];

  /**
   * face-api's input for `image`: a tensor of its pixels (0–255), made by our tfjs-core — face-api
   * takes it only as an instance of its own tf.Tensor, i.e. when both use the one tfjs-core.
   */
  const faceApiTensor = (image: RgbImage) => tf.tensor3d(Float32Array.from(image.data), [image.height, image.width, 3]);

  before(async () => {
    // Ours first: they choose and initialise the process's tfjs-core backend (wasm) as the server's workers do.
    describer = await loadRecognitionNet({});
    landmarks = await loadLandmarkNet({});
    faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as typeof FaceApi;
    // Loading face-api (and @tensorflow/tfjs under it) leaves the backend ours chose.
    expect(tf.getBackend()).to.equal('wasm');
    const modelDir = packageFile('@vladmandic/face-api', 'model');
    for (const net of [faceapi.nets.ssdMobilenetv1, faceapi.nets.faceRecognitionNet, faceapi.nets.faceLandmark68Net]) await net.loadFromDisk(modelDir);

    for (const person of PEOPLE) crops.push(await decode(cropPath(person, 1)));
    for (const photo of Object.keys(GROUP_PHOTOS)) {
      const image = await decode(path.join(FACES_DIR, photo));
      const input = faceApiTensor(image);
      const found = await faceapi.detectAllFaces(input as never, new faceapi.SsdMobilenetv1Options({ minConfidence: 0.5 }));
      input.dispose();
      for (const { box } of found) {
        const left = Math.max(0, Math.floor(box.left));
        const top = Math.max(0, Math.floor(box.top));
        const width = Math.min(image.width, Math.ceil(box.right)) - left;
        const height = Math.min(image.height, Math.ceil(box.bottom)) - top;
        groupFaces.push(await reshaped(image, { left, top, width, height }, { width, height }));
      }
    }
    // Measured: 23 faces, the stranger's half face at bbt2's edge among them.
    expect(groupFaces.length).to.be.above(20);
  });
  after(() => {
    describer.dispose();
    landmarks.dispose();
    for (const net of [faceapi.nets.ssdMobilenetv1, faceapi.nets.faceRecognitionNet, faceapi.nets.faceLandmark68Net]) net.dispose();
  });

  it('the describer gives face-api\'s 128 values for the same 150×150 chip (grey crops, colour faces from the group photos)', async () => {
    const chips = [...crops];
    // Every third face of the group photos (some of each photo): the same ops give the same numbers on
    // any chip, so more faces of one kind add run time, not proof.
    for (const face of groupFaces.filter((_, index) => index % 3 === 0)) chips.push(await reshaped(face, { left: 0, top: 0, width: face.width, height: face.height }, { width: 150, height: 150 }));
    const ours: Float32Array[] = [];
    let max = 0;
    for (const chip of chips) {
      const [{ data, dims }] = (await describer.run(chip)).tensors;
      expect(dims).to.deep.equal([1, 128]);
      const input = faceApiTensor(chip);
      const reference = (await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(input as never)) as Float32Array;
      input.dispose();
      max = Math.max(max, valueDifferences(data, reference).max);
      ours.push(data);
    }
    // Measured: 3.0e-7 (the same network as an ONNX graph on ONNX Runtime, its sums in another order and each conv's scale folded into it); a descriptor's values are ±0.3 or so.
    expect(max, 'largest difference from face-api').to.be.at.most(1e-5);
    // Different faces give different descriptors: the comparison above is not of constants.
    expect(valueDifferences(ours[0], ours[1]).max).to.be.above(0.05);
  });

  it('the landmark net gives face-api\'s 68 points, in the image\'s pixels, for faces of any size and shape', async () => {
    const amy = crops[0];
    const faces = [
      ...crops,
      // Odd differences between width and height, taller and wider: where the padding is uneven.
      await reshaped(amy, { left: 0, top: 10, width: 150, height: 121 }, { width: 150 }),
      await reshaped(amy, { left: 14, top: 0, width: 121, height: 150 }, { width: 121 }),
    ];
    // Every group face, at 1×, 0.4× or 1.8× in turn: all their shapes (odd and even width–height differences) at every size.
    for (const [index, face] of groupFaces.entries()) {
      const scale = [1, 0.4, 1.8][index % 3];
      faces.push(scale === 1 ? face : await reshaped(face, { left: 0, top: 0, width: face.width, height: face.height }, { width: Math.round(face.width * scale) }));
    }
    let max = 0;
    for (const face of faces) {
      const [{ data, dims }] = (await landmarks.run(face)).tensors;
      expect(dims).to.deep.equal([68, 2]);
      const input = faceApiTensor(face);
      const reference = (await faceapi.nets.faceLandmark68Net.detectLandmarks(input as never)) as FaceApi.FaceLandmarks68;
      input.dispose();
      max = Math.max(max, valueDifferences(data, reference.positions.flatMap(({ x, y }) => [x, y])).max);
      // face-api's five points of the face are ours.
      const [leftEye, rightEye, nose, leftMouth, rightMouth] = fivePointsOf68(reference.positions);
      const centre = (points: FaceApi.Point[]) => ({ x: points.reduce((sum, p) => sum + p.x, 0) / points.length, y: points.reduce((sum, p) => sum + p.y, 0) / points.length });
      expect([leftEye, rightEye, nose, leftMouth, rightMouth]).to.deep.equal([
        centre(reference.getLeftEye()),
        centre(reference.getRightEye()),
        { x: reference.getNose()[3].x, y: reference.getNose()[3].y },
        { x: reference.getMouth()[0].x, y: reference.getMouth()[0].y },
        { x: reference.getMouth()[6].x, y: reference.getMouth()[6].y },
      ]);
      if (crops.includes(face)) {
        // The crops are upright, frontal faces: eyes above the nose tip above the mouth corners, image-left before image-right.
        expect(leftEye.x).to.be.below(rightEye.x);
        expect(leftMouth.x).to.be.below(rightMouth.x);
        expect(Math.max(leftEye.y, rightEye.y)).to.be.below(nose.y);
        expect(nose.y).to.be.below(Math.min(leftMouth.y, rightMouth.y));
      }
    }
    // Measured: 4e-5 px at most (float32 rounding); half a pixel off (the padding split the other way) or a
    // wrong mean or layer would be far more.
    expect(max, 'largest difference from face-api, pixels').to.be.at.most(1e-3);
  });

  it('the landmark net keeps no tensors from a run, and refuses an empty image', async () => {
    const before = tf.memory().numTensors;
    await landmarks.run(groupFaces[0]);
    expect(tf.memory().numTensors).to.equal(before);
    const refusal = await landmarks.run({ width: 0, height: 0, data: Buffer.alloc(0) }).catch((error: unknown) => error);
    expect(refusal).to.be.instanceOf(RangeError);
  });

  it('runs in a worker thread as the describer does, with the same points', async () => {
    const threaded = await startThreadedModel<FaceLandmarkSummary>({ moduleUrl: moduleUrl('../src/models/runtimes/tfjs/face-landmark-net', import.meta.url) }, () => {});
    try {
      expect(threaded.summary).to.include({ name: 'face-api-landmark-68', points: 68, inputSize: 112 });
      const face = groupFaces[1];
      const [[there], [here]] = [(await threaded.run(face)).tensors, (await landmarks.run(face)).tensors];
      expect(there.dims).to.deep.equal([68, 2]);
      expect(valueDifferences(there.data, here.data).max).to.equal(0);
    } finally {
      await threaded.dispose();
    }
  });
});
