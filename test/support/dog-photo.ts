import { expect } from 'chai';

export type DetectedObject = { name: string; parent: string; confidence: number; bounding_box: { left: number; right: number; top: number; bottom: number }; cropped_image?: string };

/** Boxes of dog.jpg's three objects, from the reference pipeline (x1, y1, x2, y2). */
const DOG_PHOTO_OBJECTS = {
  dog: [133, 220, 309, 545],
  bicycle: [128, 128, 566, 430],
  truck: [461, 71, 685, 172],
};

function iou(box: DetectedObject['bounding_box'], [x1, y1, x2, y2]: number[]): number {
  const width = Math.min(box.right, x2) - Math.max(box.left, x1);
  const height = Math.min(box.bottom, y2) - Math.max(box.top, y1);
  if (width <= 0 || height <= 0) return 0;
  const intersection = width * height;
  return intersection / ((box.right - box.left) * (box.bottom - box.top) + (x2 - x1) * (y2 - y1) - intersection);
}

/** The dog photo's dog, bicycle and truck (or car) are found where they are. */
export function expectDogPhotoObjects(objects: DetectedObject[]): void {
  const best = (names: string[]) => objects.find((object) => names.includes(object.name));
  const dog = best(['dog']);
  const bicycle = best(['bicycle']);
  const vehicle = best(['truck', 'car']);
  expect(dog, 'dog found').to.not.equal(undefined);
  expect(bicycle, 'bicycle found').to.not.equal(undefined);
  expect(vehicle, 'truck or car found').to.not.equal(undefined);
  expect(iou(dog!.bounding_box, DOG_PHOTO_OBJECTS.dog)).to.be.greaterThan(0.8);
  expect(iou(bicycle!.bounding_box, DOG_PHOTO_OBJECTS.bicycle)).to.be.greaterThan(0.8);
  expect(iou(vehicle!.bounding_box, DOG_PHOTO_OBJECTS.truck)).to.be.greaterThan(0.8);
  expect(dog!.parent).to.equal('animal');
  expect(bicycle!.parent).to.equal('vehicle');
}
