import { html, type SafeHtml } from '../../console/html.js';
import type { Service } from '../../core/service.js';
import { statesPaths } from './state-routes.js';

/**
 * A region-states service's Regions and states: a camera's frame (uploaded, or the one Try it sent)
 * with its regions drawn on it, a form drawing one more (a box dragged or a polygon clicked on the
 * frame, or its coordinates typed), the regions with the state each is in on this frame to teach,
 * and each state's examples as thumbnails to remove. The camera named here is also the one Try it
 * judges (data-try-it-field), whose answers get "This was…" corrections. The section's script
 * (region-states.js) calls the service's own regions and examples routes with its key, as Try it calls the API.
 */
export function regionsSection({ type }: Service): SafeHtml {
  const paths = statesPaths({ type });
  return html`<section class="card" aria-labelledby="region-states-title" id="region-states" data-regions-path="${paths.regions}" data-examples-path="${paths.examples}">
    <link rel="stylesheet" href="/console/assets/states/region-states.css">
    <h2 id="region-states-title">Regions and states</h2>
    <p class="muted">Name the regions of a camera's frame (a parking space, a gate) and teach the states each can be in from frames of that camera: every answer says the state of each region, <em>unsure</em> when no taught state is clearly nearest. Teach each state from frames of every kind of light and weather.</p>
    <form id="states-frame-form" class="try-form">
      <div class="try-field"><label for="states-source">Camera (<code>source_id</code>)</label><input type="text" id="states-source" maxlength="256" placeholder="none" data-try-it-field="source_id" autocomplete="off"></div>
      <div class="try-field"><label for="states-frame">Frame</label><input type="file" id="states-frame" accept="image/*"></div>
      <button type="submit" class="button secondary">Show</button>
      <button type="button" class="button secondary" id="states-use-try" hidden>Use Try it's image</button>
    </form>
    <p class="muted small" id="states-frame-note">Choose a frame of this camera (or use the image Try it sent) to draw regions on it and label their states.</p>
    <canvas id="states-canvas" class="states-canvas" hidden aria-label="The frame with the camera's regions outlined; drag for a box, click for a polygon's corners"></canvas>
    <form id="states-region-form" class="try-form states-region-form">
      <div class="try-field"><label for="states-region-name">Region</label><input type="text" id="states-region-name" maxlength="100" required autocomplete="off"></div>
      <div class="try-field"><label for="states-region-shape">Shape</label><select id="states-region-shape"><option value="box">Box (drag)</option><option value="polygon">Polygon (click corners)</option></select></div>
      <div class="try-field states-coordinates"><label for="states-region-points">Coordinates</label><input type="text" id="states-region-points" required autocomplete="off" placeholder="left, top, right, bottom"></div>
      <button type="submit" class="button primary">Save region</button>
    </form>
    <p class="muted small">In frame pixels: a box as <code>left, top, right, bottom</code>; a polygon as its corners <code>x,y x,y x,y …</code>. Saving a region's name again redraws it and forgets its examples.</p>
    <div class="table-scroll"><table class="list compact stack" id="states-regions-table"><caption class="muted small" id="states-regions-count">Loading…</caption>
      <thead><tr><th scope="col">Region</th><th scope="col">Examples</th><th scope="col">State in this frame</th><th scope="col"><span class="visually-hidden">Remove</span></th></tr></thead><tbody></tbody></table></div>
    <datalist id="states-known"></datalist>
    <div class="actions"><button type="button" class="button primary" id="states-teach" disabled>Teach these states</button></div>
    <p id="states-status" class="muted" role="status"></p>
    <h3 class="states-examples-title">Examples</h3>
    <div id="states-examples" class="states-examples"><p class="muted small">Loading…</p></div>
    <script src="/console/assets/states/region-states.js" defer></script>
  </section>`;
}
