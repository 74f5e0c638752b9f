import type { Migration } from 'kysely';
import { accountsServicesKeys } from './0001-accounts-services-keys.js';
import { apiKeyCiphertext } from './0002-api-key-ciphertext.js';
import { consoleSessions } from './0003-console-sessions.js';
import { usageCounters } from './0004-usage-counters.js';
import { streamTokens } from './0005-stream-tokens.js';
import { serviceLimitsAndSignUp } from './0006-service-limits-and-sign-up.js';
import { keylessAddressRanges } from './0007-keyless-address-ranges.js';
import { accountDisabled } from './0008-account-disabled.js';
import { faceGalleries } from './0009-face-galleries.js';
import { deepStackPredictionCap } from './0010-deepstack-prediction-cap.js';
import { faceUseridKeysAndDescriptorKinds } from './0011-face-userid-keys-and-descriptor-kinds.js';
import { signInFailureEmail } from './0012-sign-in-failure-email.js';
import { unknownFaces } from './0013-unknown-faces.js';
import { faceNegatives } from './0014-face-negatives.js';
import { faceSampleQuality } from './0016-face-sample-quality.js';
import { memoryVersions } from './0017-memory-versions.js';
import { faceSimilarityScale } from './0018-face-similarity-scale.js';

/** The store's own migrations (accounts, services, keys, usage, …), keyed so that they sort in the order they must run; a feature's live in its slice. */
export const STORE_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-accounts-services-keys': accountsServicesKeys,
  '0002-api-key-ciphertext': apiKeyCiphertext,
  '0003-console-sessions': consoleSessions,
  '0004-usage-counters': usageCounters,
  '0005-stream-tokens': streamTokens,
  '0006-service-limits-and-sign-up': serviceLimitsAndSignUp,
  '0007-keyless-address-ranges': keylessAddressRanges,
  '0008-account-disabled': accountDisabled,
  '0009-face-galleries': faceGalleries,
  '0010-deepstack-prediction-cap': deepStackPredictionCap,
  '0011-face-userid-keys-and-descriptor-kinds': faceUseridKeysAndDescriptorKinds,
  '0012-sign-in-failure-email': signInFailureEmail,
  '0013-unknown-faces': unknownFaces,
  '0014-face-negatives': faceNegatives,
  '0016-face-sample-quality': faceSampleQuality,
  '0017-memory-versions': memoryVersions,
  '0018-face-similarity-scale': faceSimilarityScale,
};
