import type { Service } from '../core/service.js';
import type { FormState } from './form-fields.js';
import type { SafeHtml } from './html.js';

/**
 * Where the overview lays a card out: with what the service keeps, before Try it (`memory`, the
 * default: its known plates, …), or with its settings, after Try it (`settings`: how it answers).
 */
export type CardPlace = 'memory' | 'settings';

/** The page a card is laid out on, as its form needs it. */
export interface CardPage {
  readonly csrfToken: string;
  /** Where its form posts: `/console/services/<id>/<CardForm.path>`. */
  readonly action: string;
  /** The notice of its form, just saved (the console's own notice paragraph); '' otherwise. */
  readonly notice: SafeHtml | '';
  /** Its form, just refused: what was typed, and the errors by field. */
  readonly refused?: FormState;
}

/**
 * A form of a card, posted to a route of its own under the service (`/console/services/<id>/<path>`):
 * the console shell checks the owner and the CSRF token, hands `save` the posted fields, then lands
 * on the overview with the card's notice, or shows the page again with the form as typed (400).
 */
export interface CardForm {
  /** Lowercase letters, digits and '-': its route's last segment, the card's element id (where the page lands) and the page's `done=` once saved. */
  readonly path: string;
  /** The fields it posts (besides the CSRF token). */
  readonly fields: readonly string[];
  /** The notice once saved. */
  readonly saved: string;
  /** Saves the posted fields for the service: undefined once saved, else why not, by field. */
  save(service: Service, values: Readonly<Record<string, string>>): Promise<Readonly<Record<string, string>> | undefined>;
}

/**
 * A card a feature adds to the overview page of its services (its known plates, …): the console
 * shell lays it out beside its own cards and knows nothing else of it. Its script and stylesheet, if
 * any, are its feature's console assets (ConsoleAssets) that the card's HTML names. Its script may add fields to Try
 * it's request (an input marked `data-try-it-field`) and hear Try it's answers (the `try-it-answered`
 * event, console.js) to offer corrections beside them.
 */
export interface ServiceCard {
  /** The service type whose overview shows it. */
  readonly serviceType: string;
  /** Where on the overview; absent: `memory`. */
  readonly place?: CardPlace;
  /** Its form, posted to the console (absent: none, or one its script sends to the API with the service's key). */
  readonly form?: CardForm;
  section(service: Service, page: CardPage): SafeHtml | Promise<SafeHtml>;
}

/** A feature's scripts and stylesheets of its cards: `folder`'s files, served under `/console/assets/<name>/`. */
export interface ConsoleAssets {
  readonly name: string;
  readonly folder: string;
}
