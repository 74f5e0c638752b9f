import { csrfField, field } from '../../console/form-fields.js';
import { html } from '../../console/html.js';
import type { ServiceCard } from '../../console/service-card.js';
import { type FaceGallery, FaceGalleryError } from './gallery/face-gallery.js';

/**
 * A face service's match threshold: the one in force (its own, or the server default, as the
 * gallery reads it), and a form setting the service's own (empty: back to the default; the gallery
 * checks the value). With the service's settings, after Try it.
 */
export function faceThresholdCard(serviceType: string, gallery: Pick<FaceGallery, 'threshold' | 'ownThreshold' | 'setThreshold'>): ServiceCard {
  return {
    serviceType,
    place: 'settings',
    form: {
      path: 'face-threshold',
      fields: ['threshold'],
      saved: 'Face match threshold saved.',
      async save(service, { threshold }) {
        try {
          await gallery.setThreshold(service.id, threshold.trim() === '' ? null : Number(threshold));
          return undefined;
        } catch (error) {
          if (!(error instanceof FaceGalleryError)) throw error;
          return { threshold: error.message };
        }
      },
    },
    async section(service, page) {
      const [inForce, own] = await Promise.all([gallery.threshold(service.id), gallery.ownThreshold(service.id)]);
      const { values, errors } = page.refused ?? { values: { threshold: own === null ? '' : String(own) }, errors: {} };
      return html`<section class="card" aria-labelledby="face-threshold-title" id="face-threshold">
    <h2 id="face-threshold-title">Face match threshold</h2>
    ${page.notice}
    <p class="muted">A face is named as the registered person it is most like when their similarity (0 to 1: above 0.65 the same person, below 0.55 two people, as DeepStack's clients read it) reaches this threshold and clearly beats every other person's, else it is <em>unknown</em>. Higher names fewer strangers and leaves more of your people unknown.</p>
    <p id="face-threshold-state">Faces are named at similarity ≥ <strong id="face-threshold-value">${own === null ? `default (${inForce})` : inForce}</strong>${own === null ? '' : ', this service\u2019s own'}.</p>
    <form method="post" action="${page.action}" class="limits-form face-threshold-form" novalidate>
      ${csrfField(page.csrfToken)}
      ${field({ label: 'Threshold', name: 'threshold', value: values.threshold, error: errors.threshold, hint: 'A similarity from 0 to 1; empty: the server default.', autofocus: errors.threshold !== undefined })}
      <button type="submit" class="button secondary" id="save-face-threshold">Save threshold</button>
    </form>
  </section>`;
    },
  };
}
