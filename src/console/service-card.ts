import type { Service } from '../core/service.js';
import type { SafeHtml } from './html.js';

/**
 * A card a feature adds to the overview page of its services (its known plates, …): the console
 * shell lays it out beside its own cards and knows nothing else of it. Its script, if any, is an
 * asset under assets/console/ that the card's HTML names.
 */
export interface ServiceCard {
  /** The service type whose overview shows it. */
  readonly serviceType: string;
  section(service: Service): SafeHtml;
}
