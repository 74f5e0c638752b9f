import { expect } from 'chai';
import { DOG_PHOTO_OBJECTS, iou } from './images.js';

export type Finding = { name: string; parent: string; confidence: number; bounding_box: { left: number; right: number; top: number; bottom: number }; cropped_image?: string };

/** The dog photo's dog, bicycle and truck (or car) are found where they are. */
export function expectDogPhotoObjects(objects: Finding[]): void {
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
