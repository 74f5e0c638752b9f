import { Router } from 'express';

/** Start-up refused: one method and path claimed by two owners, each named. */
export class RouteClaimedTwice extends Error {}

/** A path as Express matches it: case-insensitive, a trailing slash optional, a parameter by any name. */
const matchedAs = (path: string): string => path.toLowerCase().replace(/:\w+/g, ':').replace(/\/+$/, '') || '/';

/** `path` or one of its ancestors' paths is `prefix` (both as matchedAs leaves them). */
const isUnder = (path: string, prefix: string): boolean => path === prefix || path.startsWith(prefix === '/' ? '/' : `${prefix}/`);

/**
 * Who claimed each route of the server (method and path), on every door of its HTTP server (the REST
 * API, the features' routes, DeepStack's and CompreFace's, the streams', the console's, the reference
 * and health checks): one per server, as find-my-way refuses a route declared twice under Fastify.
 * A second claim stops start-up naming both owners, where Express would silently answer with the
 * first router mounted. A door's 405 for the other methods of its own paths (`all`) claims nothing.
 */
export class RouteLedger {
  /** `GET /x` (as matched) → its owner, and the route as first claimed. */
  readonly #routes = new Map<string, { readonly owner: string; readonly route: string }>();
  /** A prefix (as matched) under which every path and method is one owner's → that owner, and the prefix as claimed. */
  readonly #prefixes = new Map<string, { readonly owner: string; readonly prefix: string }>();

  /** Records `owner` (a task, a feature, a door's own housekeeping) as the one answering `method` `path`; throws RouteClaimedTwice when another already does. */
  claim(method: string, path: string, owner: string): void {
    const route = `${method.toUpperCase()} ${path}`;
    const key = `${method.toUpperCase()} ${matchedAs(path)}`;
    // One route claimed twice is refused even by one owner (two of a feature's offers): the second would never answer.
    const other = this.#routes.get(key)?.owner ?? this.#ownerOfPrefix(owner, (prefix) => isUnder(matchedAs(path), prefix));
    if (other !== undefined) throw new RouteClaimedTwice(`${route} is claimed by ${other} and by ${owner}`);
    this.#routes.set(key, { owner, route });
  }

  /** Records `owner` as the one answering every method of every path under `prefix` (a mounted sub-application: the console); throws RouteClaimedTwice when another claimed one of them. */
  claimUnder(prefix: string, owner: string): void {
    const matched = matchedAs(prefix);
    const described = `${owner} (every path under ${prefix})`;
    for (const [key, claimed] of this.#routes) {
      if (claimed.owner !== owner && isUnder(key.slice(key.indexOf(' ') + 1), matched)) throw new RouteClaimedTwice(`${claimed.route} is claimed by ${claimed.owner} and by ${described}`);
    }
    const other = this.#ownerOfPrefix(owner, (claimed) => isUnder(matched, claimed) || isUnder(claimed, matched));
    if (other !== undefined) throw new RouteClaimedTwice(`${prefix} is claimed by ${other} and by ${described}`);
    this.#prefixes.set(matched, { owner, prefix });
  }

  /** The owner, as a message names it, of a prefix another than `owner` claimed that `overlaps`. */
  #ownerOfPrefix(owner: string, overlaps: (prefix: string) => boolean): string | undefined {
    for (const [matched, claimed] of this.#prefixes) if (claimed.owner !== owner && overlaps(matched)) return `${claimed.owner} (every path under ${claimed.prefix})`;
    return undefined;
  }
}

/** The methods a claiming router claims a route of before declaring it. */
const CLAIMED_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * An Express router that claims each route it declares in `ledger`, under `owner`, before
 * declaring it: `get`, `post`, `put`, `patch` and `delete` claim their method and path; `use` with
 * a path claims every path under it; `all` (a path's 405 for the other methods) claims nothing.
 * Express cannot say what a router holds once built, so the claim is made where the route is declared.
 */
export function claimingRouter(ledger: RouteLedger, owner: string): Router {
  const router = Router();
  // Express's routing methods are overloaded beyond what one typed wrapper can restate: each is replaced by one that claims, then declares.
  const methods = router as unknown as Record<string, (first: unknown, ...rest: unknown[]) => Router>;
  const pathsOf = (first: unknown): string[] => (typeof first === 'string' ? [first] : Array.isArray(first) ? first.filter((path): path is string => typeof path === 'string') : []);
  for (const method of CLAIMED_METHODS) {
    const declare = methods[method].bind(router);
    methods[method] = (first, ...rest) => {
      for (const path of pathsOf(first)) ledger.claim(method, path, owner);
      return declare(first, ...rest);
    };
  }
  const use = methods.use.bind(router);
  methods.use = (first, ...rest) => {
    for (const path of pathsOf(first)) ledger.claimUnder(path, owner);
    return use(first, ...rest);
  };
  return router;
}
