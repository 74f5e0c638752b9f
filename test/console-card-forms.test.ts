import { expect } from 'chai';
import { html } from '../src/console/html.js';
import type { ServiceCard } from '../src/console/service-card.js';
import { cardFormPaths } from '../src/console/service-routes.js';

/** A card of `serviceType` whose form posts to `path`. */
const cardPosting = (path: string, serviceType = 'object-detection'): ServiceCard => ({
  serviceType,
  form: { path, fields: [], saved: 'Saved.', save: async () => undefined },
  section: () => html`<section class="card"></section>`,
});

describe('console: the routes of the features\' card forms (ServiceCard.form)', () => {
  it('takes each path once, however many service types post to it, and refuses at start-up one of the console\'s own or not lowercase words', () => {
    expect([...cardFormPaths([cardPosting('face-threshold'), cardPosting('face-threshold', 'license-plate'), cardPosting('match-distance'), { serviceType: 'object-detection', section: () => html`<section class="card"></section>` }])]).to.deep.equal(['face-threshold', 'match-distance']);
    for (const own of ['limits', 'settings', 'delete', 'keyless', 'rotate', 'created', 'key-revoked']) expect(() => cardFormPaths([cardPosting(own)]), own).to.throw(`a console card's form posts to "${own}"`);
    for (const bad of ['../limits', 'Face-Threshold', 'face threshold', '', 'face--threshold']) expect(() => cardFormPaths([cardPosting(bad)]), bad).to.throw('lowercase words joined by "-"');
  });
});
