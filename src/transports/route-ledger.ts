/** Start-up refused: one method and path claimed by two owners, each named. */
export class RouteClaimedTwice extends Error {}

/**
 * Who claimed each route of a door (method and path), as find-my-way refuses a route declared
 * twice under Fastify: a second claim stops start-up naming both owners, where Express would
 * silently answer with the first.
 */
export class RouteLedger {
  readonly #owners = new Map<string, string>();

  /** Records `owner` (a task's type, a door's own housekeeping) as the one answering `method` `path`; throws RouteClaimedTwice when another already does. */
  claim(method: string, path: string, owner: string): void {
    const route = `${method.toUpperCase()} ${path}`;
    const other = this.#owners.get(route);
    if (other !== undefined) throw new RouteClaimedTwice(`${route} is claimed by ${other} and by ${owner}`);
    this.#owners.set(route, owner);
  }
}
