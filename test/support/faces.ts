import path from 'node:path';
import sharp from 'sharp';
import { SHARED_DIR } from './paths.js';

/** ../shared/eval/faces: 5 grey face crops of each of its people, and group photos of them. */
export const FACES_DIR = path.join(SHARED_DIR, 'eval', 'faces');
export const WIDER_VAL_DIR = path.join(FACES_DIR, 'wider-val');
export const FACE_MODELS_DIR = path.join(SHARED_DIR, 'models', 'faces');

export const faceModelPath = (name: string) => path.join(FACE_MODELS_DIR, `${name}.onnx`);
export const cropPath = (person: string, index: number) => path.join(FACES_DIR, person, `${person}${index}.png`);

/**
 * What a person sees in each group photo: the faces from left to right (by the face's left edge),
 * each the cast member's name, or `null` for someone who is not among the registered people.
 *  - bbt1: the four men on a couch, all bearded: Raj, Leonard (glasses), Howard, Sheldon (green shirt).
 *  - bbt2: a cafeteria: at the left edge a man with glasses who is not in the gallery (half his face),
 *    then Leonard (glasses, grey shirt) and Sheldon (yellow shirt), both turned to each other (near profile).
 *  - bbt3: five on a red carpet: Sheldon, Howard, Penny (purple dress), Raj (glasses), Leonard.
 *  - bbt4: six at an awards show: Leonard (front left), Amy (back left), Raj (back centre), Penny
 *    (front centre), Sheldon (front right), Bernadette (back right).
 *  - bbt5: five leaning in: Raj, Penny, Sheldon (green shirt), Leonard (glasses), Howard.
 */
export const GROUP_PHOTOS: Readonly<Record<string, readonly (string | null)[]>> = {
  'bbt1.jpg': ['raj', 'leonard', 'howard', 'sheldon'],
  'bbt2.jpg': [null, 'leonard', 'sheldon'],
  'bbt3.jpg': ['sheldon', 'howard', 'penny', 'raj', 'leonard'],
  'bbt4.jpg': ['leonard', 'amy', 'raj', 'penny', 'sheldon', 'bernadette'],
  'bbt5.jpg': ['raj', 'penny', 'sheldon', 'leonard', 'howard'],
};

/** Descriptors as the samples of good photos (features/faces/gallery/face-gallery.ts FaceSample), for a test that registers descriptors straight into a gallery. */
export const goodSamples = (...descriptors: Float32Array[]) => descriptors.map((descriptor) => ({ descriptor, weak: false }));

/**
 * Photos made from a face crop as docs/faces.md "Registration quality" measures them: an ordinary soft
 * photo (the face about 88 px tall, Gaussian σ 2, JPEG quality 30: a person would register it, and it
 * is taken, weak), a face too blurred to describe (σ 6), and faces too small to describe: bbt1 at a
 * seventh of its size, its largest face 19 px tall (the embedded YuNet finds no smaller crop's face).
 */
export const registrationPhotos = {
  soft: async (crop: string) => sharp(await sharp(crop).resize(90, 90).blur(2).png().toBuffer()).jpeg({ quality: 30 }).toBuffer(),
  undescribable: (crop: string) => sharp(crop).blur(6).png().toBuffer(),
  tiny: () => sharp(path.join(FACES_DIR, 'bbt1.jpg')).resize({ width: 195 }).jpeg({ quality: 95 }).toBuffer(),
};
