import type { ConsoleClient } from './console-client.js';
import { waitFor } from './wait-for.js';

/**
 * The requests this hour on a service's console page, once they reach `atLeast`: the usage
 * flusher writes counts about every second, so the page is read until they are there (or the
 * wait fails, saying so). The caller asserts the exact number: one too many shows.
 */
export async function consoleUsageRequests(client: ConsoleClient, serviceId: string, atLeast: number): Promise<number> {
  return waitFor(
    async () => {
      const page = await client.get(`/console/services/${serviceId}?window=hour`);
      const requests = Number(/id="usage-requests">(\d+)</.exec(page.text)?.[1]);
      return requests >= atLeast && requests;
    },
    { what: `${atLeast} request(s) in the console's usage of service ${serviceId}`, intervalMs: 100 },
  );
}
