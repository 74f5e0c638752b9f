import type { Migration, MigrationProvider } from 'kysely';
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
const STORE_MIGRATIONS: Readonly<Record<string, Migration>> = {
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

/** A migration's name: its number in the one global order, then what it does (`0015-known-plates`). */
const MIGRATION_NAME = /^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Every migration of a build: the store's own and those of the features (Feature.migrations), run
 * in one order, by name, as Kysely's Migrator sorts them. The names are the rows of its
 * `kysely_migration` table, so a shipped one never changes, wherever its file lives; each number
 * is taken once, whoever owns it.
 */
export class Migrations {
  readonly all: Readonly<Record<string, Migration>>;
  /** Their names, in the order they run: a database with another one applied comes from a newer detectd. */
  readonly names: readonly string[];
  readonly provider: MigrationProvider;

  constructor(owned: readonly Readonly<Record<string, Migration>>[]) {
    const numbers = new Map<string, string>();
    for (const name of [STORE_MIGRATIONS, ...owned].flatMap((migrations) => Object.keys(migrations))) {
      const number = MIGRATION_NAME.exec(name)?.[1];
      if (number === undefined) throw new Error(`migration ${name}: its name must be a number of 4 digits, "-", then words in lowercase letters and digits joined by "-"`);
      const taken = numbers.get(number);
      if (taken !== undefined) throw new Error(`migrations ${taken} and ${name} have the same number: give the newer one the next free number`);
      numbers.set(number, name);
    }
    this.names = [...numbers.values()].sort();
    const all = Object.assign({}, STORE_MIGRATIONS, ...owned) as Record<string, Migration>;
    this.all = Object.fromEntries(this.names.map((name) => [name, all[name]]));
    this.provider = { getMigrations: async () => this.all };
  }
}
