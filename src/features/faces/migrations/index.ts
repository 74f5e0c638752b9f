import type { Migration } from 'kysely';
import { faceGalleries } from './0009-face-galleries.js';
import { faceUseridKeysAndDescriptorKinds } from './0011-face-userid-keys-and-descriptor-kinds.js';
import { unknownFaces } from './0013-unknown-faces.js';
import { faceNegatives } from './0014-face-negatives.js';
import { faceSampleQuality } from './0016-face-sample-quality.js';
import { faceSimilarityScale } from './0018-face-similarity-scale.js';

/** The faces' migrations (Feature.migrations), under the names they shipped with in the store's folder: frozen, wherever their files live. */
export const FACE_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0009-face-galleries': faceGalleries,
  '0011-face-userid-keys-and-descriptor-kinds': faceUseridKeysAndDescriptorKinds,
  '0013-unknown-faces': unknownFaces,
  '0014-face-negatives': faceNegatives,
  '0016-face-sample-quality': faceSampleQuality,
  '0018-face-similarity-scale': faceSimilarityScale,
};
