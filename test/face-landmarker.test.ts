import { expect } from 'chai';
import sharp from 'sharp';
import { composedModels } from '../src/core/service-scheduler.js';
import { faceSimilarity } from '../src/features/faces/gallery/face-similarity.js';
import { loadModels } from '../src/models/load-models.js';
import type { ModelRegistry } from '../src/models/registry.js';
import { type Detector, isDetector } from '../src/models/types.js';
import { ModelSchedulers } from '../src/scheduler/model-schedulers.js';
import { TASK_DESCRIPTIONS } from '../src/features/index.js';
import { describeFace } from '../src/features/faces/task/describe-face.js';
import type { RgbImage } from '../src/vision/image.js';
import { detectOnce } from './support/detect-once.js';
import { cropPath, faceModelPath } from './support/faces.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';

const SETTINGS = { threads: 2, concurrency: 1, nmsIou: 0.7 };
const LIMITS = { maxPixels: 40e6, maxDetections: 100, deadlineMs: 60_000 };
/** What the tasks of the server compose: the face task's detector → landmarker → describer among them. */
const STEPS = TASK_DESCRIPTIONS.steps;

/** A face crop framed in grey half its size on each side, as the face routes frame small photos. */
async function framed(file: string): Promise<RgbImage> {
  const { data, info } = await sharp(file).removeAlpha().extend({ top: 75, bottom: 75, left: 75, right: 75, background: '#808080' }).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

const rolesOf = (registry: ModelRegistry) => registry.models.map((model) => `${model.role} ${model.name}`);

describe('the face task composes a landmarker only where its detector gives no landmarks (real models, scheduled)', function () {
  this.timeout(300_000);

  it('beside UltraFace: the landmark net is loaded at start-up, and a face is described through the landmarker\'s and the describer\'s schedulers', async () => {
    const registry = await loadModels({ modelPaths: [faceModelPath('ultraface-rfb-320')], modelsDir: undefined }, SETTINGS, () => {}, new Map(), STEPS);
    try {
      expect(rolesOf(registry)).to.deep.equal(['detector yolox-nano-416', 'detector ultraface-rfb-320', 'embedder mobilenetv2-12-int8-emb', 'describer dlib-face-recognition-resnet', 'landmarker face-api-landmark-68']);
      const ran: string[] = [];
      const models = composedModels(new ModelSchedulers(registry, { maxAdmitted: 4, onRun: (model) => ran.push(model.role) }));
      const detector = registry.defaultOf<Detector>({ role: 'detector', kind: 'faces' })!;
      const describe = describeFace(models, { signal: new AbortController().signal, limits: LIMITS });
      const descriptors = [];
      for (const [person, index] of [['penny', 1], ['penny', 2], ['sheldon', 1]] as const) {
        const image = await framed(cropPath(person, index));
        const [face] = (await detectOnce(detector, image, { minScore: 0.5, maxDetections: 10 })).detections;
        expect(face.landmarks, 'UltraFace gives no landmarks').to.equal(undefined);
        descriptors.push(await describe(image, face));
      }
      expect(ran).to.deep.equal(['landmarker', 'describer', 'landmarker', 'describer', 'landmarker', 'describer']);
      expect(Math.hypot(...descriptors[0])).to.be.closeTo(1, 1e-5);
      expect(faceSimilarity(descriptors[0], descriptors[1]), 'two photos of one person more alike than two people').to.be.above(faceSimilarity(descriptors[0], descriptors[2]));
    } finally {
      await registry.dispose();
    }
  });

  it('beside YuNet-n, whose faces carry their landmarks: no landmark net', async () => {
    const registry = await loadModels({ modelPaths: [DEFAULT_TEST_MODEL], modelsDir: undefined }, SETTINGS, () => {}, new Map(), STEPS);
    try {
      expect(rolesOf(registry)).to.deep.equal(['detector yolo26n-640-int8', 'detector yunet-n', 'embedder mobilenetv2-12-int8-emb', 'describer dlib-face-recognition-resnet']);
      expect(registry.models.filter(isDetector).every((detector) => detector.kind !== 'faces' || detector.givesLandmarks)).to.equal(true);
    } finally {
      await registry.dispose();
    }
  });
});
