import { similarityOfSquared, squaredDistanceWithin } from './face-similarity.js';

/** One descriptor of a service's gallery as read from the database: its row, its person, its values. */
export interface IndexedDescriptor {
  readonly id: string;
  readonly personId: string;
  readonly descriptor: Float32Array;
  /** A sample from a weak photo (gallery/face-quality.ts); a negative never is. */
  readonly weak: boolean;
}

/** Descriptors of one table (samples or negatives) in one Float32Array, row after row, each row's person by index and its row id. */
interface DescriptorRows {
  readonly values: Float32Array;
  readonly person: Int32Array;
  readonly ids: readonly string[];
  /** Values a row. */
  readonly width: number;
}

/**
 * A service's gallery as matching reads it, built once per version of the gallery
 * (face-gallery.ts): its people by index, and their samples and negatives each in one typed array,
 * so that a face is matched in one pass over contiguous memory rather than object by object.
 */
export interface GalleryIndex {
  /** Names by index; every registered person, whatever the kind of their descriptors. */
  readonly names: readonly string[];
  readonly samples: DescriptorRows;
  readonly negatives: DescriptorRows;
  readonly threshold: number;
}

function rowsOf(descriptors: readonly IndexedDescriptor[], personIndex: ReadonlyMap<string, number>): DescriptorRows {
  const width = descriptors[0]?.descriptor.length ?? 0;
  const values = new Float32Array(descriptors.length * width);
  const person = new Int32Array(descriptors.length);
  for (const [row, entry] of descriptors.entries()) {
    if (entry.descriptor.length !== width) throw new RangeError(`a gallery holds descriptors of ${width} and ${entry.descriptor.length} values`);
    values.set(entry.descriptor, row * width);
    person[row] = personIndex.get(entry.personId)!;
  }
  return { values, person, ids: descriptors.map((entry) => entry.id), width };
}

/** Each descriptor of `index` by its row id (views of its arrays): what the next version of the gallery copies instead of decrypting it again. */
export function descriptorsById(index: GalleryIndex | undefined): Map<string, Float32Array> {
  const byId = new Map<string, Float32Array>();
  for (const { values, ids, width } of index ? [index.samples, index.negatives] : []) {
    for (const [row, id] of ids.entries()) byId.set(id, values.subarray(row * width, (row + 1) * width));
  }
  return byId;
}

/** The index of a gallery's people (`id` → name, in the order listed) and descriptors. */
export function galleryIndex(people: readonly { id: string; name: string }[], samples: readonly IndexedDescriptor[], negatives: readonly IndexedDescriptor[], threshold: number): GalleryIndex {
  const personIndex = new Map(people.map((person, index) => [person.id, index]));
  return { names: people.map((person) => person.name), samples: rowsOf(samples, personIndex), negatives: rowsOf(negatives, personIndex), threshold };
}

/**
 * For each person, the similarity of `descriptor` to their most alike descriptor in `rows`, on
 * face-similarity.ts's scale (the same sums, so the same figures as faceSimilarity); -1 for a
 * person with no row. One pass: the smallest squared distance per person, then its similarity.
 */
export function bestPerPerson(rows: DescriptorRows, people: number, descriptor: Float32Array): Float64Array {
  const { values, person, width } = rows;
  const nearest = new Float64Array(people).fill(Infinity);
  if (person.length > 0 && descriptor.length !== width) throw new RangeError(`descriptors of ${descriptor.length} and ${width} values cannot be compared`);
  for (let row = 0, offset = 0; row < person.length; row++, offset += width) {
    const squared = squaredDistanceWithin(descriptor, values, offset, Infinity);
    if (squared < nearest[person[row]]) nearest[person[row]] = squared;
  }
  return nearest.map((squared) => (squared === Infinity ? -1 : similarityOfSquared(squared)));
}
