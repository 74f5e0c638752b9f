import type { Service } from '../core/service.js';
import type { SafeHtml } from './html.js';

/**
 * A card a feature adds to the overview page of its services (its known plates, …): the console
 * shell lays it out beside its own cards and knows nothing else of it. Its script and stylesheet, if
 * any, are assets under assets/console/ that the card's HTML names. Its script may add fields to Try
 * it's request (an input marked `data-try-it-field`) and hear Try it's answers (the `try-it-answered`
 * event, console.js) to offer corrections beside them.
 */
export interface ServiceCard {
  /** The service type whose overview shows it. */
  readonly serviceType: string;
  section(service: Service): SafeHtml;
}
