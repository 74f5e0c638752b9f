import type { ModelKind } from './types.js';

/** The license of a catalogue model's weights, as `detectd models pull` shows it before downloading. */
export interface ModelLicense {
  /** SPDX identifier. */
  readonly id: string;
  readonly url: string;
  /** What the license asks of a server that uses the weights, where it asks more than keeping the notice: shown, and accepted, before the download. */
  readonly obligation?: string;
}

/** One exact file `detectd models pull` downloads, pinned by its sha256 (anything else is refused). */
export interface CatalogueFile {
  readonly sha256: string;
  readonly bytes: number;
  /** Upstream URLs serving exactly these bytes, pinned to a commit; none when no upstream serves them (a derived file). */
  readonly urls: readonly string[];
  /** Where a mirror (DETECTD_MODELS_MIRROR) holds the file, relative to its base URL. */
  readonly mirrorPath: string;
}

/**
 * A model `detectd models pull` can download: its model file and any file its family reads beside
 * it, each pinned, with the figures measured on this project's reference machine (docs/models.md).
 */
export interface CatalogueModel extends CatalogueFile {
  /** The file's name in the models folder without `.onnx`: what services and `--model` name it by. */
  readonly name: string;
  readonly kind: ModelKind;
  readonly description: string;
  /**
   * Its configuration (`<name>.json`), written beside it by the pull unless one is there: what its
   * shape cannot tell (a plate detector's outputs look like a COCO end-to-end export's).
   */
  readonly configuration?: { readonly kind: ModelKind; readonly family: string };
  /** Files the model's family reads beside it (a plate reader's `<name>_plate_config.yaml`), downloaded with it under these names. */
  readonly companions?: readonly (CatalogueFile & { readonly file: string })[];
  /**
   * The upstream file this model is made from on the user's machine, where no upstream serves the
   * model's own bytes: the int8 weights re-encoded as uint8 (cli/uint8-weights.ts), the result
   * checked against the model's sha256 and against the upstream file's outputs on a photo.
   */
  readonly derivedFrom?: CatalogueFile;
  readonly license: ModelLicense;
  readonly accuracy: string;
  readonly speed: string;
  /** The confidence threshold its authors' own demo uses, where they give one: where the console's Try it starts for it. */
  readonly suggestedThreshold?: number;
}

const AGPL: ModelLicense = {
  id: 'AGPL-3.0',
  url: 'https://www.ultralytics.com/license',
  obligation:
    'AGPL-3.0 (Ultralytics YOLO weights): Ultralytics holds that software using these weights — detectd and what you build on it, also when offered only over a network — must give its users its source under AGPL-3.0, unless you have an Ultralytics Enterprise License',
};
const APACHE: ModelLicense = { id: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' };
const MIT: ModelLicense = { id: 'MIT', url: 'https://opensource.org/license/mit' };

const ON_COCO = 'on coco-val122 (reference pipeline)';
const ON_WIDER = 'AP@0.5 on wider-val through detectd (npm run eval -- --faces), faces ≥ 64 / ≥ 32 / ≥ 16 px';
/** The face detectors were timed on a loaded machine: their speed reads as a ratio to the embedded YuNet-n's in the same runs. */
const besideYunet = (ratio: string) => `${ratio} the embedded yunet-n's inference time`;

/** Ultralytics' `predict` keeps boxes from this confidence on (its `conf` argument's default). */
const ULTRALYTICS_CONF = 0.25;
/** YOLOX's `tools/demo.py` draws boxes from this confidence on (its `--conf` default). */
const YOLOX_DEMO_CONF = 0.3;

const ON_PLATES = 'on the check half of ../shared/eval/plates, with the plate pipeline (npm run eval -- --plates; docs/plates.md)';
/** The commit of agusibrahim/fast-alpr-rs whose models/ holds the plate files measured here (../shared/models/plates/README.md). */
const FAST_ALPR_RS = 'https://raw.githubusercontent.com/agusibrahim/fast-alpr-rs/9a4e03d2f2f26a041e05752bed5668ee7ebc1e64/models';

const ULTRAFACE = 'https://raw.githubusercontent.com/Linzaer/Ultra-Light-Fast-Generic-Face-Detector-1MB/dffdddda9794a50607cba8f318507a28c1c27cab/models/onnx';
/** ShiqiYu/libfacedetection.train at the commit whose onnx/ holds the YuNet files measured here. */
const YUNET = 'https://raw.githubusercontent.com/ShiqiYu/libfacedetection.train/0047ac24afb1a50a0c6105001c89d1b5b805dbf1/onnx';

/** YOLO26n's int8 quantization as published upstream (the weights of yolo26n-640-int8, in int8). */
const YOLO26N_UPSTREAM: CatalogueFile = {
  sha256: '912af18b308425e7214fb2ea198261a8a336522579c55c8422d5e40dca1c2a5d',
  bytes: 2908758,
  urls: ['https://raw.githubusercontent.com/jatinbalajisailada/realtime-object-detection/cbd6d8ba00ab7b9d7623e4aa987e6a7bdc01ebcf/yolo26n_int8.onnx'],
  mirrorPath: 'upstream/yolo26n_int8.onnx',
};

/**
 * The known-good models: the COCO-80 detectors and face detectors this project measured. Sources,
 * sha256 and figures: the shared models' READMEs (their "Download sources" for the URLs, each
 * pinned to an upstream commit and checked against its bytes).
 */
export const MODEL_CATALOGUE: readonly CatalogueModel[] = [
  {
    name: 'yolo26n-640-int8',
    kind: 'objects',
    description: 'YOLO26n, 640 px, int8 (re-encoded as uint8: outputs identical to upstream, about 3× faster)',
    sha256: 'f6ea4d54e7008ab9fd55534ae45e5d49aa52b8a610c9bebd60f5fb1238cca33e',
    bytes: 2908860,
    urls: [],
    mirrorPath: 'yolo26n-640-int8.onnx',
    derivedFrom: YOLO26N_UPSTREAM,
    license: AGPL,
    accuracy: `AP 43.6 ${ON_COCO}`,
    speed: '58 ms',
    suggestedThreshold: ULTRALYTICS_CONF,
  },
  {
    name: 'yolo26n-640-int8-upstream',
    kind: 'objects',
    description: 'YOLO26n, 640 px, int8 as published upstream: the weights of yolo26n-640-int8 in their slower encoding',
    ...YOLO26N_UPSTREAM,
    license: AGPL,
    accuracy: `AP 43.6 ${ON_COCO} (outputs identical to yolo26n-640-int8)`,
    speed: 'about 3× the 58 ms of yolo26n-640-int8',
    suggestedThreshold: ULTRALYTICS_CONF,
  },
  {
    name: 'yolo11n-640-int8',
    kind: 'objects',
    description: 'YOLO11n, 640 px, int8',
    sha256: '81d6d2affeb367e3a535ce4fcf5891ebf9cc562fac0a0da019bbc5e1bcc46d44',
    bytes: 3028908,
    urls: ['https://raw.githubusercontent.com/SampersS/yolov11/ccee55829d6f8b34ee8a79aef32e98cbf2ce7d43/yolo11n_quantized.onnx'],
    mirrorPath: 'yolo11n-640-int8.onnx',
    license: AGPL,
    accuracy: `AP 44.3 ${ON_COCO}`,
    speed: '69 ms',
    suggestedThreshold: ULTRALYTICS_CONF,
  },
  {
    name: 'yolov8n-640-int8',
    kind: 'objects',
    description: 'YOLOv8n, 640 px, int8',
    sha256: '83de8f0d2cd521e00ae2b138c340a03dece35b060b3898509bdc69afff417312',
    bytes: 3504119,
    urls: ['https://raw.githubusercontent.com/Lamri-Meriem/edge-object-detection/6f7f95f70dd52a7805a76a4a1d568af35d34608b/yolov8n_int8.onnx'],
    mirrorPath: 'yolov8n-640-int8.onnx',
    license: AGPL,
    accuracy: `AP 43.0 ${ON_COCO}`,
    speed: '72 ms',
    suggestedThreshold: ULTRALYTICS_CONF,
  },
  {
    name: 'yolov10n-640-int8',
    kind: 'objects',
    description: 'YOLOv10n, 640 px, int8 (re-encoded as uint8)',
    sha256: 'af45ee8e74af3c0da1f30bebe477ca9815b3888aa3eff9ff8a111fc4d0464b6e',
    bytes: 2740031,
    urls: [],
    mirrorPath: 'yolov10n-640-int8.onnx',
    derivedFrom: {
      sha256: 'c210371d7793313eb83db9a6777501779801917e3a8bd3c3ec2b3535d08a78bc',
      bytes: 2739948,
      urls: ['https://raw.githubusercontent.com/HEU-Allen/gaotong/395a5ca6fedbe363a06caa289a5d57427f052362/yolov10n_int8.onnx'],
      mirrorPath: 'upstream/yolov10n_int8.onnx',
    },
    license: AGPL,
    accuracy: 'not measured here; published COCO AP 38.5 (fp32)',
    speed: '72 ms',
    suggestedThreshold: ULTRALYTICS_CONF,
  },
  {
    name: 'yolo11n-320-int8',
    kind: 'objects',
    description: 'YOLO11n, 320 px, int8',
    sha256: 'a513b3f4a008def6dbda3c4028cc7d030e18e1034614a9256d2b9e3f815ce1fe',
    bytes: 2923970,
    urls: ['https://raw.githubusercontent.com/sudo-pixel-spec/DroneEye/0f4902b670ce901e18fdb261d50a644eead205f5/models/yolo11n_int8.onnx'],
    mirrorPath: 'yolo11n-320-int8.onnx',
    license: AGPL,
    accuracy: `AP 35.4 ${ON_COCO}`,
    speed: '19 ms',
    suggestedThreshold: ULTRALYTICS_CONF,
  },
  {
    name: 'yolox-nano-416',
    kind: 'objects',
    description: 'YOLOX-nano, 416 px (the embedded model: served without a download when no object model is configured)',
    sha256: '695e750a5d5754bb5a8d5325643b59282191a7e7a564e435a415fd3c578eab14',
    bytes: 3660092,
    urls: ['https://raw.githubusercontent.com/Kazuhito00/YOLOX-ONNX-TFLite-Sample/3d4f1119d0694200671c08069ecb847aa0d8495a/model/yolox_nano.onnx'],
    mirrorPath: 'yolox-nano-416.onnx',
    license: APACHE,
    accuracy: `AP 35.5 ${ON_COCO}`,
    speed: '11 ms',
    suggestedThreshold: YOLOX_DEMO_CONF,
  },
  {
    name: 'ultraface-rfb-640',
    kind: 'faces',
    description: 'UltraFace RFB, 640×480',
    sha256: '8f4c659275977e7a3bfbfa339a9c769ad793df50f9c0baa8c14b11baa1646430',
    bytes: 1588012,
    urls: [`${ULTRAFACE}/version-RFB-640.onnx`],
    mirrorPath: 'faces/ultraface-rfb-640.onnx',
    license: MIT,
    accuracy: `${ON_WIDER}: 0.886 / 0.871 / 0.778`,
    speed: besideYunet('1.1–1.8×'),
  },
  {
    name: 'ultraface-rfb-320',
    kind: 'faces',
    description: 'UltraFace RFB, 320×240',
    sha256: '34cd7e60aeff28744c657de7a3dc64e872d506741de66987f3426f2b79f88017',
    bytes: 1270727,
    urls: [`${ULTRAFACE}/version-RFB-320.onnx`],
    mirrorPath: 'faces/ultraface-rfb-320.onnx',
    license: MIT,
    accuracy: `${ON_WIDER}: 0.850 / 0.782 / 0.616`,
    speed: besideYunet('0.3–0.4×'),
  },
  {
    name: 'yunet-n',
    kind: 'faces',
    description: 'YuNet-n (libfacedetection v3), any input size, 5 landmarks (the embedded face model: served without a download when no face model is configured)',
    sha256: '104ee26c71d5c270ce79a6b3dced91c91013260d29a6bf18f9296c5b8c4c2b12',
    bytes: 322906,
    urls: [`${YUNET}/yunet_n_dynamic.onnx`],
    mirrorPath: 'faces/yunet-n.onnx',
    license: APACHE,
    accuracy: `${ON_WIDER}: 0.934 / 0.915 / 0.881`,
    speed: '1× (the reference: 90–170 ms an image of 1024 px here under load)',
  },
  {
    name: 'yunet-s',
    kind: 'faces',
    description: 'YuNet-s (the weights of OpenCV Zoo’s face_detection_yunet_2023mar), any input size, 5 landmarks',
    sha256: 'daede24002cc8590f457998cc5e6c9e8b82f45f6bd969506a8913cd4ed10a2d3',
    bytes: 237823,
    urls: [`${YUNET}/yunet_s_dynamic.onnx`],
    mirrorPath: 'faces/yunet-s.onnx',
    license: APACHE,
    accuracy: `${ON_WIDER}: 0.929 / 0.908 / 0.858`,
    speed: besideYunet('0.65–1×'),
  },
  {
    name: 'retinaface-mnet025',
    kind: 'faces',
    description: 'RetinaFace, MobileNet-0.25 backbone, any input size, 5 landmarks',
    sha256: '13a69f2cb3012162ccce8466b1cd9e445ae1337ae641f31c90419e6179f13650',
    bytes: 1711594,
    // The file ../shared/models/faces/README.md names as the source (ShiqiYu/libfacedetection.train@589da0c), not downloaded here to check: the sha256 refuses any other bytes.
    urls: ['https://raw.githubusercontent.com/ShiqiYu/libfacedetection.train/589da0cd531986021b80118d2dff0d2b0dbb706a/onnx/retinaface_mbnet0.25.onnx'],
    mirrorPath: 'faces/retinaface-mnet025.onnx',
    license: MIT,
    accuracy: `${ON_WIDER}: 0.947 / 0.927 / 0.864`,
    speed: besideYunet('1.4–2×'),
  },
  {
    name: 'yolo-v9-t-416-license-plates-end2end-int8',
    kind: 'plates',
    configuration: { kind: 'plates', family: 'yolo-plates-end2end' },
    description:
      'Licence-plate detector: open-image-models YOLOv9-t, 416 px, NMS inside, weights dynamic-int8 (a third party’s quantization of the MIT fp32 release; the quantizing repository states no licence of its own)',
    sha256: '5a5eac89c5736f6e0d94ef2422defc8a1eed828b6ad1124d0128df4d47fc2b65',
    bytes: 2493847,
    // Not downloaded here to check: the sha256 refuses any other bytes.
    urls: [`${FAST_ALPR_RS}/yolo-v9-t-416-license-plates-end2end1.onnx`],
    mirrorPath: 'plates/yolo-v9-t-416-license-plates-end2end-int8.onnx',
    license: MIT,
    accuracy: `plates found 100 % (far camera frames: 96.4 %) ${ON_PLATES}`,
    speed: 'about 50 ms (most of a plate read)',
    suggestedThreshold: 0.25,
  },
  {
    name: 'cct_xs_v2_global',
    kind: 'plate-text',
    configuration: { kind: 'plate-text', family: 'fast-plate-ocr' },
    description: 'Licence-plate reader: fast-plate-ocr CCT-XS v2 "global" (65+ countries, with a country guess), reads every plate of an image in one batch',
    sha256: '8031afb5fdc6b4d80462c9d542f1284ebd2cfddf5dbacd62609848d7e2855f44',
    bytes: 3344292,
    // The same bytes as fast-plate-ocr's own release asset (releases/download/arg-plates/cct_xs_v2_global.onnx), which no commit pins.
    urls: [`${FAST_ALPR_RS}/cct_xs_v2_global.onnx`],
    mirrorPath: 'plates/cct_xs_v2_global.onnx',
    companions: [
      {
        file: 'cct_xs_v2_global_plate_config.yaml',
        sha256: '0335c74a305173bb6f393efed0fde03cadeaa0b649ed8e19f431016d8232d0a6',
        bytes: 1725,
        urls: [`${FAST_ALPR_RS}/cct_xs_v2_global_plate_config.yaml`],
        mirrorPath: 'plates/cct_xs_v2_global_plate_config.yaml',
      },
    ],
    license: MIT,
    accuracy: `94.5 % read exactly, 99.1 % within one character (far camera frames: 84.5 %, 96.4 %) ${ON_PLATES}`,
    speed: 'about 5 ms a plate',
  },
];

/** The catalogue model named `name`, or undefined. */
export function catalogueModel(name: string): CatalogueModel | undefined {
  return MODEL_CATALOGUE.find((model) => model.name === name);
}
