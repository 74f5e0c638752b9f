import type { Service } from '../../core/service.js';
import { html, type SafeHtml } from '../../console/html.js';
import { knownPlatesPath } from './known-plates-path.js';

/**
 * A licence-plate service's Known plates: its list (plate, name, when added) with a Remove button
 * each, a form adding one, and the match distance. The section's script (known-plates.js) calls the
 * service's own known-plates routes with its key, as Try it calls the API.
 */
export function knownPlatesSection({ type }: Service): SafeHtml {
  return html`<section class="card" aria-labelledby="known-plates-title" id="known-plates" data-known-plates-path="${knownPlatesPath(type)}">
    <h2 id="known-plates-title">Known plates</h2>
    <p class="muted">Plates with a name each. Every answer that reads one of them, up to the distance below off (O and 0, I and 1 counting as one character), says its name under <code>known</code>; reads shorter than 4 characters must match exactly.</p>
    <div class="table-scroll"><table class="list compact stack" id="known-plates-table"><caption class="muted small" id="known-plates-count">Loading…</caption>
      <thead><tr><th scope="col">Plate</th><th scope="col">Name</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Remove</span></th></tr></thead><tbody></tbody></table></div>
    <form id="known-plates-form" class="try-form people-form">
      <div class="try-field"><label for="known-plate">Plate</label><input type="text" id="known-plate" name="plate" maxlength="40" required autocomplete="off"></div>
      <div class="try-field"><label for="known-plate-name">Name</label><input type="text" id="known-plate-name" name="name" maxlength="200" required></div>
      <button type="submit" class="button primary">Add plate</button>
    </form>
    <form id="known-plates-distance-form" class="try-form people-form">
      <div class="try-field"><label for="known-plates-distance">Match distance</label>
        <select id="known-plates-distance" name="distance"><option value="0">0 — exactly</option><option value="1">1 character (default)</option><option value="2">2 characters</option><option value="3">3 characters</option></select></div>
      <button type="submit" class="button secondary">Save distance</button>
    </form>
    <p id="known-plates-status" class="muted" role="status"></p>
    <script src="/console/assets/plates/known-plates.js" defer></script>
  </section>`;
}

