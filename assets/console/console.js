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

// One row per thing found (an object; a face, named when recognized): name, the detector's confidence, box. Built with DOM
// nodes, so names are never parsed as HTML. Returns each thing found with its row, where the page's cards add their
// corrections (the `try-it-answered` event).
function fillObjectTable(objects) {
  const body = document.querySelector('#try-table tbody');
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
    return { finding: object, row };
  });
  body.replaceChildren(...rows.map(({ row }) => row));
  return rows;
}

const smallButton = (text, label) => {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'button small secondary';
  button.textContent = text;
  if (label) button.setAttribute('aria-label', label);
  return button;
};


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
