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

function reportError(button, error) {
  flash(button, 'Failed');
  const status = document.getElementById('try-status');
  if (status) status.textContent = `Could not read the API key: ${error.message}`;
}

document.addEventListener('click', async (event) => {
  const target = event.target instanceof Element ? event.target.closest('button') : null;
  if (!target) return;
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

// One row per thing found (an object, a face: its name is the person's when recognized): name, confidence, box. Built with DOM nodes, so names are never parsed as HTML.
function fillObjectTable(objects) {
  const body = document.querySelector('#try-table tbody');
  body.replaceChildren(
    ...objects.map((object) => {
      const row = document.createElement('tr');
      const box = object.bounding_box;
      for (const [text, numeric] of [
        [object.name, false],
        [object.confidence.toFixed(2), true],
        [`${box.left}, ${box.top}, ${box.right}, ${box.bottom}`, true],
      ]) {
        const cell = document.createElement('td');
        cell.textContent = text;
        if (numeric) cell.className = 'num';
        row.append(cell);
      }
      return row;
    }),
  );
}

// "Try it": the same public API call a client makes, with this service's key and the chosen confidence threshold.
async function tryIt() {
  const status = document.getElementById('try-status');
  const result = document.getElementById('try-result');
  const file = document.getElementById('try-file').files[0];
  if (!file) {
    status.textContent = 'Choose an image first.';
    return;
  }
  const threshold = confidenceInput().value;
  // The service's own task: its path and the field its answer lists what it found in (detected_objects, detected_faces).
  const { path, answer } = document.getElementById('try-form').dataset;
  status.textContent = 'Detecting…';
  try {
    const [apiKey, rawData] = await Promise.all([fetchKey(), readAsBase64(file)]);
    const started = performance.now();
    const response = await fetch(path, {
      method: 'POST',
      headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        raw_data: rawData,
        configurations: [
          { parameter: 'ConfidenceThreshold', value: threshold },
          { parameter: 'OutputVisualizedImage', value: 'true' },
        ],
      }),
    });
    const body = await response.json();
    if (!response.ok) {
      result.hidden = true;
      status.textContent = `Error ${response.status}: ${body.error?.message ?? 'request failed'}`;
      return;
    }
    const found = body[answer].length;
    status.textContent = `${found} found at confidence ≥ ${Number(threshold).toFixed(2)} in ${Math.round(performance.now() - started)} ms.`;
    // The visualized image comes back as raw_data, where Nvision clients read it.
    document.getElementById('try-image').src = `data:image/jpeg;base64,${body.raw_data}`;
    fillObjectTable(body[answer]);
    const shown = { ...body, raw_data: `<base64 JPEG, ${body.raw_data.length} characters>` };
    document.getElementById('try-json').textContent = JSON.stringify(shown, null, 2);
    result.hidden = false;
  } catch (error) {
    status.textContent = `Request failed: ${error.message}`;
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
    const response = await fetch('/api/v1/object-detection/stream-tokens', { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}` } });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error?.message ?? `the server answered ${response.status}`);
    window.location.assign(`${link.getAttribute('href')}#${new URLSearchParams({ token: body.token, stream_path: body.stream_path })}`);
  } catch (error) {
    flash(link, 'Failed');
    const status = document.getElementById('try-status');
    if (status) status.textContent = `Could not open the live-video demo: ${error.message}`;
  }
});
