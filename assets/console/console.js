// detectd console: reveal/copy of the API key, confirmations, and "Try it". No framework, no build step.
'use strict';

const csrfToken = () => document.querySelector('meta[name="csrf-token"]')?.content ?? '';
const overview = () => document.querySelector('.overview');
let revealedKey;

// Asks the server for this service's key (same-origin POST with the CSRF token); cached for the page's life.
async function fetchKey() {
  if (revealedKey) return revealedKey;
  const page = overview();
  const response = await fetch(`/console/services/${page.dataset.service}/api-key`, {
    method: 'POST',
    headers: { 'X-CSRF-Token': csrfToken(), Accept: 'application/json' },
    credentials: 'same-origin',
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error?.message ?? `the server answered ${response.status}`);
  revealedKey = body.api_key;
  return revealedKey;
}

// A call of the service's own REST routes with its key, as Try it calls the API (a card's lists and changes): the answer's
// JSON ({} for 204 No Content), or its error's message thrown.
async function serviceCall(method, url, body) {
  const apiKey = await fetchKey();
  const response = await fetch(url, {
    method,
    headers: { Authorization: `ApiKey ${apiKey}`, ...(body && { 'Content-Type': 'application/json' }) },
    body: body && JSON.stringify(body),
  });
  if (response.status === 204) return {};
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error?.message ?? `the server answered ${response.status}`);
  return answer;
}

function showKey(visible) {
  const keyElement = document.getElementById('api-key');
  const mask = keyElement.dataset.mask ?? keyElement.textContent;
  keyElement.dataset.mask = mask;
  keyElement.textContent = visible ? revealedKey : mask;
  keyElement.dataset.masked = String(!visible);
  for (const slot of document.querySelectorAll('[data-key-slot]')) slot.textContent = visible ? revealedKey : mask;
  const button = document.getElementById('reveal-key');
  if (button) button.textContent = visible ? 'Hide' : 'Reveal';
}

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  // Plain-http origins have no async clipboard: fall back to a selected textarea.
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  document.execCommand('copy');
  area.remove();
}

function flash(button, text) {
  const label = button.dataset.label ?? button.textContent;
  button.dataset.label = label;
  button.textContent = text;
  setTimeout(() => (button.textContent = label), 1500);
}

// "Try it" and the page's buttons report here: progress and results as plain text, failures as errors.
function showStatus(text) {
  const status = document.getElementById('try-status');
  if (!status) return;
  status.className = 'try-status';
  status.textContent = text;
}

// An ISO 8601 time in a server message (when a quota renews, …), shown in the reader's own time zone.
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z/g;
function withLocalTimes(message) {
  const nodes = [];
  let last = 0;
  for (const match of message.matchAll(ISO_TIME)) {
    nodes.push(message.slice(last, match.index));
    const time = document.createElement('time');
    time.dateTime = match[0];
    time.title = match[0];
    time.textContent = new Date(match[0]).toLocaleString(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
    nodes.push(time);
    last = match.index + match[0].length;
  }
  nodes.push(message.slice(last));
  return nodes;
}

function inWords(seconds) {
  if (seconds < 90) return `${seconds} seconds`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} minutes`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} hours`;
  return `${Math.round(seconds / 86400)} days`;
}

function showError(title, message, retryAfterSeconds) {
  const status = document.getElementById('try-status');
  if (!status) return;
  status.className = 'try-status is-error';
  const heading = document.createElement('strong');
  heading.textContent = title;
  const detail = document.createElement('span');
  detail.append(...withLocalTimes(/[.!?]$/.test(message) ? message : `${message}.`));
  if (retryAfterSeconds > 0) detail.append(` Try again in ${inWords(retryAfterSeconds)}.`);
  status.replaceChildren(heading, detail);
}

function reportError(button, error) {
  flash(button, 'Failed');
  showError('Could not read the API key', error.message);
}

// "Call it": one tab per language; the chosen one's panel shows.
function showTab(chosen) {
  for (const tab of chosen.closest('[role="tablist"]').querySelectorAll('[role="tab"]')) {
    const selected = tab === chosen;
    tab.setAttribute('aria-selected', String(selected));
    tab.classList.toggle('active', selected);
    document.getElementById(tab.getAttribute('aria-controls')).hidden = !selected;
  }
}

document.addEventListener('click', async (event) => {
  const target = event.target instanceof Element ? event.target.closest('button') : null;
  if (!target) return;
  if (target.getAttribute('role') === 'tab') return showTab(target);
  try {
    if (target.id === 'reveal-key') {
      const visible = document.getElementById('api-key').dataset.masked === 'true';
      if (visible) await fetchKey();
      showKey(visible);
    } else if (target.hasAttribute('data-copy-key')) {
      await copyText(await fetchKey());
      flash(target, 'Copied');
    } else if (target.dataset.copyFrom) {
      if (target.hasAttribute('data-needs-key') && document.getElementById('api-key')) {
        await fetchKey();
        showKey(true);
      }
      await copyText(document.getElementById(target.dataset.copyFrom).textContent);
      flash(target, 'Copied');
    }
  } catch (error) {
    reportError(target, error);
  }
});

document.addEventListener('submit', (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) event.preventDefault();
});

function readAsBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

const confidenceInput = () => document.getElementById('try-confidence');

// What a thing found is called: a recognized face by the person's name and how alike they are ("amy — similarity 0.84"),
// a known plate by its text and the name listed with it ("DG2Z6U — known: Amy's car"), a region by its name and its state ("gate — open").
const nameOf = (object) =>
  object.state !== undefined
    ? `${object.name} — ${object.state}`
    : object.known
      ? `${object.name} — known: ${object.known.name}`
      : object.similarity === undefined
        ? object.name
        : `${object.name} — similarity ${object.similarity.toFixed(2)}`;

// One row per thing found (an object; a face, named when recognized): name, the detector's confidence, box, and on a
// service that keeps people, the face's correction. Built with DOM nodes, so names are never parsed as HTML. Returns each
// thing found with its row.
function fillObjectTable(objects) {
  const body = document.querySelector('#try-table tbody');
  const corrects = document.getElementById('try-form').dataset.gallery === 'true';
  const rows = objects.map((object) => {
    const row = document.createElement('tr');
    // A finding about the whole image (a label, a text) has no box.
    const box = object.bounding_box;
    for (const [text, numeric] of [
      [nameOf(object), false],
      [object.confidence.toFixed(2), true],
      [box ? `${box.left}, ${box.top}, ${box.right}, ${box.bottom}` : 'the whole image', Boolean(box)],
    ]) {
      const cell = document.createElement('td');
      cell.textContent = text;
      if (numeric) cell.className = 'num';
      row.append(cell);
    }
    // Under the face's name, so the table keeps its three columns on a phone.
    if (corrects) row.firstElementChild.append(faceCorrection(object));
    return { finding: object, row };
  });
  body.replaceChildren(...rows.map(({ row }) => row));
  return rows;
}

// The image Try it sent last, as base64: what its faces' corrections send again, with the face's box.
let triedImage;

const smallButton = (text, label) => {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'button small secondary';
  button.textContent = text;
  if (label) button.setAttribute('aria-label', label);
  return button;
};

// A correction of the service's people over its REST API (docs/faces.md "Corrections"): `faces` adds the photo's face
// to the person, `not` attaches it to them as a face they are not. `photo` is a JSON body's fields or a file.
async function correctPerson(userid, verb, photo) {
  const apiKey = await fetchKey();
  const file = photo instanceof Blob;
  const response = await fetch(`${overview().dataset.apiPath}/people/${encodeURIComponent(userid)}/${verb}`, {
    method: 'POST',
    headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': file ? photo.type || 'application/octet-stream' : 'application/json' },
    body: file ? photo : JSON.stringify(photo),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error?.message ?? `the server answered ${response.status}`);
  return answer;
}

const plural = (count, one, many) => `${count} ${count === 1 ? one : many}`;
// An added face's warnings (docs/faces.md "Registration quality"): a weak face counts only while its person has no good photo.
const weakText = (warnings) => (warnings?.length > 0 ? `; weak, counted only while they have no good photo: ${warnings.map((warning) => warning.message).join('; ')}` : '');
const boxText = (box) => `${box.left},${box.top},${box.right},${box.bottom}`;

// One button's call: the button disabled while it runs; `done` with its answer, or `refused` with the error (the button usable again).
async function runAction(button, call, done, refused) {
  button.disabled = true;
  try {
    done(await call());
  } catch (error) {
    button.disabled = false;
    refused(error);
  }
}

// A button that opens a one-field form in its place: a name typed and `submit` pressed, `act` runs with it and the submit button.
function inlineNameForm(text, label, placeholder, submit, act) {
  const holder = document.createElement('span');
  holder.className = 'inline-action';
  const open = smallButton(text, label);
  open.addEventListener('click', () => {
    const form = document.createElement('form');
    form.className = 'add-face';
    const input = document.createElement('input');
    input.type = 'text';
    input.maxLength = 200;
    input.required = true;
    input.placeholder = placeholder;
    input.setAttribute('aria-label', label);
    const go = smallButton(submit);
    go.type = 'submit';
    form.append(input, go);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (input.value.trim()) act(input.value.trim(), go);
    });
    holder.replaceChildren(form);
    input.focus();
  });
  holder.append(open);
  return holder;
}

// Try it's correction of one face: "Not <name>" beside a named face, "Add to…" (a person's name) beside any other. Done,
// Try it asks again, so the table shows what the correction changed, and the People list follows.
function faceCorrection(face) {
  const cell = document.createElement('div');
  cell.className = 'try-correct';
  const box = face.bounding_box;
  if (!box) return cell;
  const apply = (button, userid, verb) =>
    runAction(
      button,
      () => correctPerson(userid, verb, { raw_data: triedImage, box: boxText(box) }),
      async ({ person, warnings }) => {
        const done = verb === 'not'
          ? `${person.userid}: this face is not them (${plural(person.negatives, '\u201cnot this person\u201d face', '\u201cnot this person\u201d faces')}).`
          : `Face added to ${person.userid} (${plural(person.photos, 'photo', 'photos')})${weakText(warnings)}.`;
        await tryIt();
        showStatus(`${done} ${document.getElementById('try-status').textContent}`);
        if (document.getElementById('people')) listPeople();
      },
      (error) => showError('The correction was refused', error.message),
    );
  if (face.similarity !== undefined) {
    const not = smallButton(`Not ${face.name}`);
    not.addEventListener('click', () => apply(not, face.name, 'not'));
    cell.append(not);
    return cell;
  }
  cell.append(inlineNameForm('Add to\u2026', `Add the face at ${boxText(box)} to a person`, 'Name or id', 'Add', (userid, button) => apply(button, userid, 'add')));
  return cell;
}

// One chip per class (per state, for regions), most found first: "dog 1", "person 3", "occupied 12".
function fillCounts(objects) {
  const counts = new Map();
  for (const object of objects) counts.set(object.state ?? object.name, (counts.get(object.state ?? object.name) ?? 0) + 1);
  const chips = [...counts].sort(([nameA, countA], [nameB, countB]) => countB - countA || nameA.localeCompare(nameB));
  document.getElementById('try-counts').replaceChildren(
    ...chips.map(([name, count]) => {
      const chip = document.createElement('li');
      const number = document.createElement('span');
      number.className = 'count';
      number.textContent = `× ${count}`;
      chip.append(name, number);
      return chip;
    }),
  );
}

// The annotated image as a file to save, named after the one sent.
let downloadUrl;
function offerDownload(base64Jpeg, sentName) {
  if (downloadUrl) URL.revokeObjectURL(downloadUrl);
  downloadUrl = URL.createObjectURL(new Blob([Uint8Array.from(atob(base64Jpeg), (character) => character.charCodeAt(0))], { type: 'image/jpeg' }));
  const link = document.getElementById('try-download');
  link.href = downloadUrl;
  link.download = `${sentName.replace(/\.[^.]*$/, '') || 'image'}-detected.jpg`;
}

// The fields the page's cards add to Try it's request: an input marked data-try-it-field="source_id" sends its value as source_id.
const tryItFields = () => Object.fromEntries([...document.querySelectorAll('[data-try-it-field]')].map((input) => [input.dataset.tryItField, input.value]));

// "Try it": the same public API call a client makes, with this service's key and the chosen confidence threshold. Once
// answered, the page's cards hear of it (the `try-it-answered` event: the fields and image sent, each thing found with its
// table row), to offer their own corrections of it.
async function tryIt() {
  const result = document.getElementById('try-result');
  const file = document.getElementById('try-file').files[0];
  if (!file) {
    showError('No image chosen', 'Choose an image file first.');
    return;
  }
  const threshold = confidenceInput().value;
  // The field the service's task lists what it found in (detected_objects, detected_faces), what its confidence is of ("face confidence"), and whether it draws what it found.
  const { answer, confidence, draws } = document.getElementById('try-form').dataset;
  showStatus('Detecting…');
  try {
    const [apiKey, rawData] = await Promise.all([fetchKey(), readAsBase64(file)]);
    triedImage = rawData;
    const started = performance.now();
    const fields = tryItFields();
    const response = await fetch(overview().dataset.apiPath, {
      method: 'POST',
      headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        ...fields,
        raw_data: rawData,
        configurations: [{ parameter: 'ConfidenceThreshold', value: threshold }, ...(draws === 'true' ? [{ parameter: 'OutputVisualizedImage', value: 'true' }] : [])],
      }),
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      result.hidden = true;
      const code = body.error?.code ? ` ${body.error.code}` : '';
      showError(`Refused: ${response.status}${code}`, body.error?.message ?? 'the request failed', Number(response.headers.get('retry-after')) || 0);
      return;
    }
    const found = body[answer].length;
    showStatus(`${found} found at ${confidence} ≥ ${Number(threshold).toFixed(2)} in ${Math.round(performance.now() - started)} ms.`);
    // The visualized image comes back as raw_data, where Nvision clients read it; a task that draws nothing shows the image sent.
    const shownImage = document.getElementById('try-image');
    if (shownImage.src.startsWith('blob:')) URL.revokeObjectURL(shownImage.src);
    shownImage.src = body.raw_data ? `data:image/jpeg;base64,${body.raw_data}` : URL.createObjectURL(file);
    document.getElementById('try-download').hidden = !body.raw_data;
    if (body.raw_data) offerDownload(body.raw_data, file.name);
    fillCounts(body[answer]);
    const findings = fillObjectTable(body[answer]);
    const shown = body.raw_data ? { ...body, raw_data: `<base64 JPEG, ${body.raw_data.length} characters>` } : body;
    document.getElementById('try-json').textContent = JSON.stringify(shown, null, 2);
    result.hidden = false;
    document.dispatchEvent(new CustomEvent('try-it-answered', { detail: { fields, image: rawData, findings } }));
    // A face service that remembers unknown faces may have kept some of these.
    if (document.getElementById('unknown-people')) listUnknown();
  } catch (error) {
    result.hidden = true;
    showError('The request failed', error.message);
  }
}

document.getElementById('try-form')?.addEventListener('submit', (event) => {
  event.preventDefault();
  tryIt();
});
const showConfidence = () => (document.getElementById('try-confidence-value').textContent = Number(confidenceInput().value).toFixed(2));
// The browser may restore the slider's position on back/forward; the number beside it follows.
if (confidenceInput()) showConfidence();
confidenceInput()?.addEventListener('input', showConfidence);
// Letting go of the slider asks again with the new threshold, once an image has been tried.
confidenceInput()?.addEventListener('change', () => {
  if (!document.getElementById('try-result').hidden) tryIt();
});

// The live-video demo: trade the key for a single-use stream token and hand the page only that, in the URL fragment (never sent to a server).
document.getElementById('live-video')?.addEventListener('click', async (event) => {
  event.preventDefault();
  const link = event.currentTarget;
  try {
    const apiKey = await fetchKey();
    const response = await fetch(overview().dataset.streamTokensPath, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}` } });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error?.message ?? `the server answered ${response.status}`);
    // `tokens_path` lets the demo trade a pasted key for this service's next stream; `back` leads back to this service.
    window.location.assign(`${link.getAttribute('href')}#${new URLSearchParams({ token: body.token, stream_path: body.stream_path, tokens_path: overview().dataset.streamTokensPath, back: location.pathname })}`);
  } catch (error) {
    flash(link, 'Failed');
    showError('Could not open the live-video demo', error.message);
  }
});

// "People" (face services): the service's DeepStack face routes, called with its key as Try it calls the API.
async function faceCall(route, form) {
  const apiKey = await fetchKey();
  const response = await fetch(`/v1/vision/face/${route}`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}` }, body: form });
  const body = await response.json().catch(() => ({}));
  if (!body.success) throw new Error(body.error ?? `the server answered ${response.status}`);
  return body;
}

// A row of a card's list: its cells (label shown when a phone stacks the row, text, numeric?) and its action
// buttons ([text, aria-label, on click]). Built with DOM nodes, so names are never parsed as HTML.
function listRow(cells, actions) {
  const row = document.createElement('tr');
  for (const [label, text, numeric] of cells) {
    const cell = document.createElement('td');
    if (label) {
      const stackLabel = document.createElement('span');
      stackLabel.className = 'stack-label';
      stackLabel.textContent = label;
      cell.append(stackLabel);
    }
    cell.append(text);
    if (numeric) cell.className = 'num';
    row.append(cell);
  }
  const cell = document.createElement('td');
  cell.className = 'row-actions';
  for (const [text, label, act] of actions) {
    const button = smallButton(text, label);
    button.addEventListener('click', act);
    cell.append(button);
  }
  row.append(cell);
  return row;
}

async function listPeople() {
  const status = document.getElementById('people-count');
  try {
    const { people } = await faceCall('list', new FormData());
    status.textContent = people.length === 0 ? 'Nobody registered yet.' : `${people.length} ${people.length === 1 ? 'person' : 'people'} registered`;
    document.querySelector('#people-table tbody').replaceChildren(
      ...people.map((person) =>
        listRow(
          [['', person.userid, false], ['Photos ', String(person.photos), true], ['Not them ', String(person.negatives), true], ['Added ', new Date(person.added).toLocaleDateString(undefined, { dateStyle: 'medium' }), false]],
          [
            ['Add photo', `Add a photo of ${person.userid}`, () => choosePhoto(person.userid, 'add')],
            ['Not this person', `A photo of someone who is not ${person.userid}`, () => choosePhoto(person.userid, 'not')],
            ['Remove', `Remove ${person.userid}`, () => removePerson(person.userid)],
          ],
        ),
      ),
    );
  } catch (error) {
    status.textContent = `Could not list the people: ${error.message}`;
  }
}

async function removePerson(userid) {
  if (!window.confirm(`Remove ${userid} and every photo's face descriptor? Their faces will be unknown from now on.`)) return;
  const form = new FormData();
  form.append('userid', userid);
  const status = document.getElementById('people-status');
  try {
    await faceCall('delete', form);
    status.textContent = `${userid} removed.`;
  } catch (error) {
    status.textContent = `Could not remove ${userid}: ${error.message}`;
  }
  listPeople();
}

// The face taken from one photo, cut out of the local file (nothing is fetched back): a canvas of the box, or
// null where this browser cannot show the file (a format only the server reads), so the page never waits forever.
function takenFace(file, box) {
  return new Promise((resolve) => {
    const image = new Image();
    image.onload = () => {
      const canvas = document.createElement('canvas');
      const [width, height] = [box.x_max - box.x_min, box.y_max - box.y_min];
      const scale = Math.min(1, 120 / Math.max(width, height));
      canvas.width = Math.round(width * scale);
      canvas.height = Math.round(height * scale);
      canvas.getContext('2d').drawImage(image, box.x_min, box.y_min, width, height, 0, 0, canvas.width, canvas.height);
      URL.revokeObjectURL(image.src);
      resolve(canvas);
    };
    image.onerror = () => {
      URL.revokeObjectURL(image.src);
      resolve(null);
    };
    image.src = URL.createObjectURL(file);
  });
}

async function registerPerson() {
  const status = document.getElementById('people-status');
  const userid = document.getElementById('people-userid').value.trim();
  const files = [...document.getElementById('people-photos').files];
  if (!userid || files.length === 0) {
    status.textContent = 'Give a name and choose at least one photo.';
    return;
  }
  const form = new FormData();
  form.append('userid', userid);
  files.forEach((file, index) => form.append(`image${index + 1}`, file, file.name));
  status.textContent = 'Registering…';
  const taken = document.getElementById('people-taken');
  taken.replaceChildren();
  try {
    const body = await faceCall('register', form);
    const used = new Map(body.faces_taken.map((face) => [face.image, face]));
    const refused = new Map((body.faces_refused ?? []).map((face) => [face.image, face.error]));
    const weak = new Map();
    for (const face of body.faces_weak ?? []) weak.set(face.image, [...(weak.get(face.image) ?? []), face.warning]);
    // Every figure is ready before the status says the call is done, so what it reports is already on the page.
    const figures = await Promise.all(files.map(async (file, index) => {
      const figure = document.createElement('figure');
      const caption = document.createElement('figcaption');
      caption.className = 'small muted';
      const face = used.get(`image${index + 1}`);
      const canvas = face ? await takenFace(file, face) : null;
      if (canvas) figure.append(canvas);
      const why = refused.get(`image${index + 1}`);
      const warnings = weak.get(`image${index + 1}`) ?? [];
      const taken = canvas ? file.name : `${file.name}: face taken (this browser cannot show the file)`;
      caption.textContent = why ? `${file.name}: refused, ${why}` : !face ? `${file.name}: no face found` : warnings.length > 0 ? `${taken}; weak: ${warnings.join('; ')}` : taken;
      figure.append(caption);
      return figure;
    }));
    taken.append(...figures);
    status.textContent = `${userid}: ${body.message} (${used.size} of ${files.length} photo${files.length === 1 ? '' : 's'} showed a face${weak.size > 0 ? `; ${weak.size} weak, counted only while ${userid} has no good photo` : ''}${refused.size > 0 ? `; ${refused.size} refused` : ''}).`;
    // Registered: the form is ready for the next person (a refused one keeps what was typed, to correct it).
    document.getElementById('people-form').reset();
  } catch (error) {
    status.textContent = `Could not register ${userid}: ${error.message}`;
  }
  listPeople();
}

// The People list's Add photo and Not this person: one file input, told which person and which correction a chosen photo is for.
let pendingCorrection;
function choosePhoto(userid, verb) {
  pendingCorrection = { userid, verb };
  const input = document.getElementById('people-correction-file');
  input.value = '';
  input.click();
}

async function sendChosenPhoto() {
  const file = document.getElementById('people-correction-file').files[0];
  if (!file || !pendingCorrection) return;
  const { userid, verb } = pendingCorrection;
  const status = document.getElementById('people-status');
  status.textContent = verb === 'not' ? `Adding ${file.name} as not ${userid}…` : `Adding ${file.name} to ${userid}…`;
  try {
    const { person, warnings } = await correctPerson(userid, verb, file);
    status.textContent = verb === 'not'
      ? `${file.name}: faces like it are no longer named ${person.userid} (${plural(person.negatives, '\u201cnot this person\u201d face', '\u201cnot this person\u201d faces')}).`
      : `${file.name}: face added to ${person.userid} (${plural(person.photos, 'photo', 'photos')})${weakText(warnings)}.`;
  } catch (error) {
    status.textContent = `${file.name} was refused: ${error.message}`;
  }
  listPeople();
}

if (document.getElementById('people')) {
  listPeople();
  document.getElementById('people-correction-file').addEventListener('change', sendChosenPhoto);
  document.getElementById('people-form').addEventListener('submit', (event) => {
    event.preventDefault();
    registerPerson();
  });
}
// "Unknown people" (face services): the service's unknown-people REST routes, called with its key as Try it calls the API.
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
  document.getElementById('remember-form').addEventListener('submit', (event) => {
    event.preventDefault();
    saveRememberSettings();
  });
}

// The new-service form: the model list is the chosen type's (a service is answered only by a model of its type), its server default named.
function followType(typeSelect, modelSelect) {
  const groups = [...modelSelect.querySelectorAll('optgroup')];
  const serverDefault = modelSelect.querySelector('option[value=""]');
  const showModelsOfType = () => {
    const chosen = modelSelect.value;
    const group = groups.find((each) => each.dataset.type === typeSelect.value);
    modelSelect.replaceChildren(serverDefault, ...(group ? [group] : []));
    if (group) serverDefault.textContent = `Server default (${group.dataset.defaultModel})`;
    modelSelect.value = group && [...group.children].some((option) => option.value === chosen) ? chosen : '';
  };
  showModelsOfType();
  typeSelect.addEventListener('change', showModelsOfType);
}
const newServiceForm = document.getElementById('new-service-form');
if (newServiceForm) followType(newServiceForm.elements.type, newServiceForm.elements.model);

// The usage panel refreshes itself while the page is open and shown: the same page, fetched again, gives the new panel.
const USAGE_REFRESH_MS = 5000;
async function refreshUsage() {
  const panel = document.getElementById('usage');
  if (!panel || document.hidden) return;
  const response = await fetch(`${location.pathname}?window=${encodeURIComponent(panel.dataset.window)}`, { credentials: 'same-origin', headers: { Accept: 'text/html' } });
  if (!response.ok) return;
  const fresh = new DOMParser().parseFromString(await response.text(), 'text/html').getElementById('usage');
  if (fresh) panel.replaceWith(fresh);
}
if (document.getElementById('usage')) setInterval(() => refreshUsage().catch(() => {}), USAGE_REFRESH_MS);
