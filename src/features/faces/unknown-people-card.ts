import { html, type SafeHtml } from '../../console/html.js';

/**
 * A face service's Unknown people: the switch that keeps the faces no one is named for (on/off,
 * retention, cap), and the unknown people it grouped them into, each with its faces' thumbnails,
 * counts, when seen and the frame_id/source_id each came with, to name, merge or forget, and each
 * kept face to add to a person or to attach to one as "not them". Filled by the section's script
 * (unknown-people.js, which uses people.js's corrections: the People card comes first) from the
 * service's unknown-people REST routes, with its key (docs/faces.md "Unknown people").
 */
export function unknownPeopleSection(): SafeHtml {
  return html`<section class="card" aria-labelledby="unknown-title" id="unknown-people">
    <link rel="stylesheet" href="/console/assets/faces/unknown-people.css">
    <h2 id="unknown-title">Unknown people</h2>
    <p class="muted">With <em>Remember unknown faces</em> on, every face this service names no one for is kept (its description and a small thumbnail, encrypted, with the <code>frame_id</code> and <code>source_id</code> it came with) and grouped with faces of the same person. Name a group to register its best faces as a person. Kept faces are forgotten after the days below, the oldest first beyond the cap.</p>
    <form id="remember-form" class="try-form remember-form">
      <div class="try-field switch-field"><label for="remember-on"><input type="checkbox" id="remember-on" name="remember"> Remember unknown faces</label></div>
      <div class="try-field"><label for="remember-days">Keep for (days)</label><input type="number" id="remember-days" name="retention_days" min="1" max="3650" step="1" required></div>
      <div class="try-field"><label for="remember-cap">At most (faces)</label><input type="number" id="remember-cap" name="max_faces" min="1" max="100000" step="1" required></div>
      <button type="submit" class="button secondary">Save</button>
    </form>
    <p id="unknown-status" class="muted" role="status"></p>
    <p class="muted small" id="unknown-count">Loading…</p>
    <ol id="unknown-list" class="unknown-list"></ol>
    <script src="/console/assets/faces/unknown-people.js" defer></script>
  </section>`;
}
