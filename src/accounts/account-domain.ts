import type { Database } from '../store/database.js';
import { Accounts } from './accounts.js';
import { type Clock, systemClock } from './iso-time.js';
import { ConsoleSessions } from './console-sessions.js';
import { RecentlyVerified } from './recently-verified.js';
import { ServiceKeys } from './service-keys.js';
import { Services } from './services.js';
import { SignInThrottle } from './sign-in-throttle.js';
import { type SignUpPolicy, SignUps } from './sign-up.js';

/** The account domain over one database: what the server, the CLI and the tests all build alike. */
export interface AccountDomain {
  readonly accounts: Accounts;
  readonly services: Services;
  readonly keys: ServiceKeys;
  readonly sessions: ConsoleSessions;
  readonly throttle: SignInThrottle;
  readonly signUps: SignUps;
}

export interface AccountDomainOptions {
  /** Service types a service may have: the task table's (the features' tasks). */
  readonly serviceTypes: readonly string[];
  /** The models a new service may name (absent: not checked). */
  readonly modelNames?: readonly string[];
  /** The models a service of a type may name (those that find what its task finds); absent: `modelNames` for every type. */
  readonly modelsOfType?: (type: string) => readonly string[];
  /** The time that API-key grace periods and console sessions expire by (default: the system clock). */
  readonly now?: Clock;
  /** Who may sign up in the console (absent: `invite`, the first account then invitation links). */
  readonly signUp?: SignUpPolicy;
}

export function accountDomain(db: Database, secret: string, options: AccountDomainOptions): AccountDomain {
  const now = options.now ?? systemClock;
  const verified = new RecentlyVerified(now);
  const keys = new ServiceKeys(db, secret, now, verified);
  return {
    accounts: new Accounts(db, verified),
    services: new Services(db, keys, verified, options.serviceTypes, options.modelNames ?? [], options.modelsOfType),
    keys,
    sessions: new ConsoleSessions(db, now),
    throttle: new SignInThrottle(db),
    signUps: new SignUps(db, options.signUp ?? 'invite'),
  };
}
