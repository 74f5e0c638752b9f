import { html, type SafeHtml } from '../../console/html.js';

/**
 * A face service's People: its registered people (photos, "not this person" faces, when added) with
 * Add photo, Not this person (each a photo upload) and Remove buttons each, and a form registering a
 * person from photo uploads that shows the face taken from each photo. The section's script
 * (people.js) calls the service's own DeepStack face routes and its people's REST corrections with
 * its key, as Try it calls the API, and offers Try it's corrections beside each face it found.
 */
export function peopleSection(): SafeHtml {
  return html`<section class="card" aria-labelledby="people-title" id="people">
    <link rel="stylesheet" href="/console/assets/faces/people.css">
    <h2 id="people-title">People</h2>
    <p class="muted">Who this service recognizes. A person is registered from one or more photos: the face of each is described and kept (encrypted; the photos are not kept). A photo whose face is too small or too blurred to describe is refused, with the reason, and so is a photo of several faces none of which stands out: choose that face with <em>Try it</em>'s <em>Add to…</em>. <em>Not this person</em> takes a photo of someone who was named as them wrongly: faces more like it than like their own photos are no longer named as them.</p>
    <div class="table-scroll"><table class="list compact stack" id="people-table"><caption class="muted small" id="people-count">Loading…</caption>
      <thead><tr><th scope="col">Person</th><th scope="col" class="num">Photos</th><th scope="col" class="num">Not them</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Corrections and removal</span></th></tr></thead><tbody></tbody></table></div>
    <input type="file" id="people-correction-file" accept="image/*" hidden>
    <form id="people-form" class="try-form people-form">
      <div class="try-field"><label for="people-userid">Name or id</label><input type="text" id="people-userid" name="userid" maxlength="200" required></div>
      <div class="try-field"><label for="people-photos">Photos</label><input type="file" id="people-photos" name="photos" accept="image/*" multiple required></div>
      <button type="submit" class="button primary">Register person</button>
    </form>
    <p id="people-status" class="muted" role="status"></p>
    <div id="people-taken" class="people-taken"></div>
    <script src="/console/assets/faces/people.js" defer></script>
  </section>`;
}
