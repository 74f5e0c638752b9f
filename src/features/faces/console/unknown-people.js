// detectd console: a face service's "Unknown people" (its unknown-people REST routes, called with its key as Try it calls the
// API): the switch that keeps the faces no one is named for, and the unknown people they were grouped into, to name, merge or forget.
// Runs after console.js and people.js (all deferred, in page order: the People card comes first), whose fetchKey(), overview(),
// smallButton(), runAction(), inlineNameForm(), plural(), weakText(), correctPerson() and listPeople() it uses.
'use strict';

const unknownPath = () => `${overview().dataset.apiPath}/unknown-people`;
async function unknownCall(path, method = 'GET', body) {
  const apiKey = await fetchKey();
  const response = await fetch(`${unknownPath()}${path}`, {
    method,
    headers: { Authorization: `ApiKey ${apiKey}`, ...(body && { 'Content-Type': 'application/json' }) },
    ...(body && { body: JSON.stringify(body) }),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error?.message ?? `the server answered ${response.status}`);
  return answer;
}

const shortTime = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const unknownStatus = (text) => (document.getElementById('unknown-status').textContent = text);

// A kept face's thumbnail: fetched with the key (the route needs it), shown from a blob URL let go once loaded.
async function thumbnailOf(groupId, faceId, label) {
  const image = document.createElement('img');
  image.className = 'unknown-thumb';
  image.alt = label;
  image.width = 64;
  image.height = 64;
  try {
    const apiKey = await fetchKey();
    const response = await fetch(`${unknownPath()}/${groupId}/faces/${faceId}/thumbnail`, { headers: { Authorization: `ApiKey ${apiKey}` } });
    if (!response.ok) throw new Error(String(response.status));
    image.src = URL.createObjectURL(await response.blob());
    image.onload = () => URL.revokeObjectURL(image.src);
  } catch {
    image.alt = `${label} (could not be loaded)`;
  }
  return image;
}

// An Unknown people button's call: its status said, the unknown people and the People list read again.
const afterUnknownAction = (button, call, said) =>
  runAction(
    button,
    call,
    (answer) => {
      unknownStatus(said(answer));
      listUnknown();
      if (document.getElementById('people')) listPeople();
    },
    (error) => unknownStatus(`Refused: ${error.message}`),
  );

// One kept face: its thumbnail, when it was seen, the frame_id/source_id it came with; Add to… a person, Not… a person.
async function keptFaceItem(group, face, index) {
  const item = document.createElement('li');
  item.className = 'unknown-face';
  const seen = document.createElement('span');
  seen.className = 'small';
  const labels = [shortTime(face.seen), face.frame_id !== null ? `frame ${face.frame_id}` : '', face.source_id !== null ? `source ${face.source_id}` : ''].filter(Boolean);
  seen.textContent = labels.join(' · ');
  const correct = (userid, verb, button) =>
    afterUnknownAction(button, () => correctPerson(userid, verb, { face_id: face.id }), ({ person, warnings }) =>
      verb === 'not' ? `A face of this group is now not ${person.userid}.` : `The face was added to ${person.userid} (${plural(person.photos, 'photo', 'photos')})${weakText(warnings)}.`);
  const actions = document.createElement('span');
  actions.className = 'unknown-actions';
  actions.append(
    inlineNameForm('Add to\u2026', `Add face ${index + 1} to a person`, 'Name or id', 'OK', (userid, button) => correct(userid, 'add', button)),
    inlineNameForm('Not\u2026', `Face ${index + 1} is not this registered person`, 'Registered name', 'OK', (userid, button) => correct(userid, 'not', button)),
  );
  item.append(await thumbnailOf(group.id, face.id, `Face ${index + 1}, seen ${shortTime(face.seen)}`), seen, actions);
  return item;
}

// One unknown person: best faces, count, first and last seen; Name, Merge into another, Forget; their faces listed.
async function unknownGroupItem(group, number, others) {
  const item = document.createElement('li');
  item.className = 'unknown-group';
  const head = document.createElement('div');
  head.className = 'unknown-head';
  const title = document.createElement('h3');
  title.textContent = `Unknown person ${number}`;
  const facts = document.createElement('p');
  facts.className = 'muted small';
  facts.textContent = `${plural(group.face_count, 'face', 'faces')} · first seen ${shortTime(group.first_seen)} · last seen ${shortTime(group.last_seen)}`;
  head.append(title, facts);

  const act = (button, call, done) => afterUnknownAction(button, call, () => done);
  const actions = document.createElement('div');
  actions.className = 'unknown-actions';
  actions.append(inlineNameForm('Name', `Name unknown person ${number}`, 'Name or id', 'OK', (userid, button) =>
    afterUnknownAction(button, () => unknownCall(`/${group.id}/name`, 'POST', { userid }), (named) =>
      `Unknown person ${number} is now ${userid}: their best faces are registered${named.weak_faces > 0 ? ` (${named.weak_faces} weak: smaller than a good photo's face, counted only while ${userid} has no good photo)` : ''}.`)));
  if (others.length > 0) {
    const merge = document.createElement('form');
    merge.className = 'add-face';
    const choice = document.createElement('select');
    choice.setAttribute('aria-label', `Merge unknown person ${number} into`);
    choice.append(...others.map(({ id, number: other }) => Object.assign(document.createElement('option'), { value: id, textContent: `into unknown person ${other}` })));
    const go = smallButton('Merge');
    go.type = 'submit';
    merge.append(choice, go);
    merge.addEventListener('submit', (event) => {
      event.preventDefault();
      act(go, () => unknownCall(`/${group.id}/merge`, 'POST', { into: choice.value }), `Unknown person ${number} merged.`);
    });
    actions.append(merge);
  }
  const forget = smallButton('Forget', `Forget unknown person ${number}`);
  forget.addEventListener('click', () => {
    if (window.confirm(`Forget unknown person ${number}? Their ${plural(group.face_count, 'face', 'faces')} and thumbnails are deleted at once.`)) {
      act(forget, () => unknownCall(`/${group.id}`, 'DELETE'), `Unknown person ${number} forgotten.`);
    }
  });
  actions.append(forget);

  const best = document.createElement('div');
  best.className = 'unknown-best';
  best.append(...(await Promise.all(group.best_faces.map((faceId, index) => thumbnailOf(group.id, faceId, `Unknown person ${number}, face ${index + 1}`)))));
  const faces = document.createElement('details');
  faces.className = 'unknown-faces';
  const summary = document.createElement('summary');
  summary.textContent = `Faces (${group.face_count})`;
  const list = document.createElement('ol');
  faces.append(summary, list);
  // Each face with where it came from, read when first opened.
  faces.addEventListener('toggle', async () => {
    if (!faces.open || list.childElementCount > 0) return;
    try {
      const detail = await unknownCall(`/${group.id}`);
      list.append(...(await Promise.all(detail.faces.map((face, index) => keptFaceItem(group, face, index)))));
    } catch (error) {
      list.textContent = `Could not list the faces: ${error.message}`;
    }
  });
  item.append(head, best, actions, faces);
  return item;
}

async function listUnknown() {
  const count = document.getElementById('unknown-count');
  try {
    const { unknown_people: groups } = await unknownCall('');
    const numbered = groups.map((group, index) => ({ id: group.id, number: index + 1 }));
    const items = await Promise.all(groups.map((group, index) => unknownGroupItem(group, index + 1, numbered.filter((other) => other.id !== group.id))));
    // The count and the list change together: a count over the old list would say what the page does not show.
    count.textContent = groups.length === 0 ? 'No unknown people kept.' : `${plural(groups.length, 'unknown person', 'unknown people')}`;
    document.getElementById('unknown-list').replaceChildren(...items);
  } catch (error) {
    count.textContent = `Could not list the unknown people: ${error.message}`;
  }
}

async function loadRememberSettings() {
  try {
    const settings = await unknownCall('/settings');
    document.getElementById('remember-on').checked = settings.remember;
    document.getElementById('remember-days').value = settings.retention_days;
    document.getElementById('remember-cap').value = settings.max_faces;
  } catch (error) {
    unknownStatus(`Could not read the switch: ${error.message}`);
  }
}

async function saveRememberSettings() {
  const form = document.getElementById('remember-form');
  if (!form.reportValidity()) return;
  try {
    const settings = await unknownCall('/settings', 'PUT', {
      remember: document.getElementById('remember-on').checked,
      retention_days: Number(document.getElementById('remember-days').value),
      max_faces: Number(document.getElementById('remember-cap').value),
    });
    unknownStatus(settings.remember
      ? `Unknown faces are remembered for ${plural(settings.retention_days, 'day', 'days')}, at most ${plural(settings.max_faces, 'face', 'faces')}.`
      : 'Unknown faces are not remembered.');
  } catch (error) {
    unknownStatus(`Not saved: ${error.message}`);
  }
}

if (document.getElementById('unknown-people')) {
  loadRememberSettings();
  listUnknown();
  // A Try it of this service may have kept some of the faces it found.
  document.addEventListener('try-it-answered', listUnknown);
  document.getElementById('remember-form').addEventListener('submit', (event) => {
    event.preventDefault();
    saveRememberSettings();
  });
}
