// detectd console: a region-states service's "Regions and states" (the service's regions and examples routes, called with
// its key as Try it calls the API): a frame with the camera's regions drawn on it, drawing one more, teaching the states of
// this frame, each state's examples, and "This was…" beside each region Try it judged.
// Runs after console.js (both deferred, in page order), whose serviceCall(), readAsBase64(), listRow(), smallButton(),
// inlineNameForm(), runAction(), tryIt(), showStatus() and showError() it uses.
'use strict';

const statesCard = () => document.getElementById('region-states');
const statesSource = () => document.getElementById('states-source').value;
const statesStatus = (text) => (document.getElementById('states-status').textContent = text);

// The frame shown: its base64 (what teaching sends) and the decoded image (what the canvas draws).
let statesFrame;
// The source's regions as last listed: {name, bounding_box, polygon ([x, y] points, or null), examples: {state: count}}.
let statesRegions = [];
// The shape being drawn, in frame pixels: a box {left, top, right, bottom} or a polygon's points [[x, y], …].
let drawnShape;
// Where a box's drag started.
let dragStart;

const statesCall = (method, path, { query, body } = {}) => serviceCall(method, `${path}${query ? `?${new URLSearchParams(query)}` : ''}`, body);

const regionsPath = () => statesCard().dataset.regionsPath;
const examplesPath = () => statesCard().dataset.examplesPath;
const shapeKind = () => document.getElementById('states-region-shape').value;
const pointsInput = () => document.getElementById('states-region-points');

// Coordinates as typed: a box's four numbers, or a polygon's x,y corners; undefined until they make one.
function typedShape() {
  const numbers = pointsInput().value.split(/[\s,;]+/).filter(Boolean).map(Number);
  if (numbers.some((number) => !Number.isFinite(number))) return undefined;
  if (shapeKind() === 'box') {
    if (numbers.length !== 4) return undefined;
    const [left, top, right, bottom] = numbers;
    return { left, top, right, bottom };
  }
  if (numbers.length < 6 || numbers.length % 2 !== 0) return undefined;
  return Array.from({ length: numbers.length / 2 }, (_, index) => [numbers[2 * index], numbers[2 * index + 1]]);
}

function showShape(shape) {
  drawnShape = shape;
  pointsInput().value = !shape ? '' : Array.isArray(shape) ? shape.map(([x, y]) => `${x},${y}`).join(' ') : `${shape.left}, ${shape.top}, ${shape.right}, ${shape.bottom}`;
  drawFrame();
}

// The frame, each region outlined and named, and the shape being drawn dashed.
function drawFrame() {
  const canvas = document.getElementById('states-canvas');
  canvas.hidden = !statesFrame;
  if (!statesFrame) return;
  const { image } = statesFrame;
  if (canvas.width !== image.naturalWidth || canvas.height !== image.naturalHeight) {
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
  }
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  // Lines and names keep their size on the page whatever the frame's.
  const scale = canvas.width / Math.max(1, canvas.getBoundingClientRect().width);
  context.lineWidth = 2 * scale;
  context.font = `600 ${Math.round(12 * scale)}px system-ui, sans-serif`;
  const outline = (shape) => {
    context.beginPath();
    if (Array.isArray(shape)) {
      shape.forEach(([x, y], index) => (index === 0 ? context.moveTo(x, y) : context.lineTo(x, y)));
      context.closePath();
    } else {
      context.rect(shape.left, shape.top, shape.right - shape.left, shape.bottom - shape.top);
    }
    context.stroke();
  };
  context.strokeStyle = '#2456d6';
  context.setLineDash([]);
  for (const region of statesRegions) {
    outline(region.polygon ?? region.bounding_box);
    const box = region.bounding_box;
    const width = context.measureText(region.name).width + 6 * scale;
    context.fillStyle = '#2456d6';
    context.fillRect(box.left, Math.max(0, box.top - 16 * scale), width, 16 * scale);
    context.fillStyle = '#fff';
    context.fillText(region.name, box.left + 3 * scale, Math.max(0, box.top - 16 * scale) + 12 * scale);
  }
  if (drawnShape) {
    context.strokeStyle = '#e8590c';
    context.setLineDash([6 * scale, 4 * scale]);
    if (Array.isArray(drawnShape) && drawnShape.length < 3) {
      for (const [x, y] of drawnShape) context.strokeRect(x - 2 * scale, y - 2 * scale, 4 * scale, 4 * scale);
    } else {
      outline(drawnShape);
    }
  }
}

// A pointer's place on the canvas, in frame pixels.
function framePoint(event) {
  const canvas = document.getElementById('states-canvas');
  const rect = canvas.getBoundingClientRect();
  const within = (value, size) => Math.min(size, Math.max(0, Math.round(value)));
  return [within(((event.clientX - rect.left) * canvas.width) / rect.width, canvas.width), within(((event.clientY - rect.top) * canvas.height) / rect.height, canvas.height)];
}

function boxBetween([x1, y1], [x2, y2]) {
  return { left: Math.min(x1, x2), top: Math.min(y1, y2), right: Math.max(x1, x2), bottom: Math.max(y1, y2) };
}

async function showFrame(file) {
  const [base64, image] = await Promise.all([
    readAsBase64(file),
    new Promise((resolve, reject) => {
      const image = new Image();
      image.onload = () => resolve(image);
      image.onerror = () => reject(new Error(`${file.name || 'the image'} is not an image this browser can show`));
      image.src = URL.createObjectURL(file);
    }),
  ]);
  if (statesFrame) URL.revokeObjectURL(statesFrame.image.src);
  statesFrame = { base64, image };
  document.getElementById('states-frame-note').textContent = `${file.name}, ${image.naturalWidth} × ${image.naturalHeight}: drag for a box, or click a polygon's corners; then label the states below.`;
  drawFrame();
  document.getElementById('states-teach').disabled = statesRegions.length === 0;
}

const examplesText = (examples) => {
  const states = Object.entries(examples).sort(([a], [b]) => a.localeCompare(b));
  return states.length === 0 ? 'none yet' : states.map(([state, count]) => `${state} ${count}`).join(', ');
};

async function listRegions() {
  const count = document.getElementById('states-regions-count');
  try {
    const { regions } = await statesCall('GET', regionsPath(), { query: { source_id: statesSource() } });
    statesRegions = regions;
    count.textContent = regions.length === 0 ? 'No regions on this camera yet.' : `${regions.length} region${regions.length === 1 ? '' : 's'}`;
    const states = [...new Set(regions.flatMap((region) => Object.keys(region.examples)))].sort();
    document.getElementById('states-known').replaceChildren(...states.map((state) => Object.assign(document.createElement('option'), { value: state })));
    document.querySelector('#states-regions-table tbody').replaceChildren(
      ...regions.map((region) => {
        const state = document.createElement('input');
        state.type = 'text';
        state.className = 'states-state';
        state.maxLength = 100;
        state.dataset.region = region.name;
        state.setAttribute('list', 'states-known');
        state.setAttribute('aria-label', `State of ${region.name} in this frame`);
        return listRow(
          [['', region.name, false], ['Examples ', examplesText(region.examples), false], ['In this frame ', state, false]],
          [['Remove', `Remove region ${region.name}`, () => removeRegion(region.name)]],
        );
      }),
    );
    document.getElementById('states-teach').disabled = !statesFrame || regions.length === 0;
  } catch (error) {
    count.textContent = `Could not list the regions: ${error.message}`;
  }
  drawFrame();
}

async function listExamples() {
  const holder = document.getElementById('states-examples');
  try {
    const { examples } = await statesCall('GET', examplesPath(), { query: { source_id: statesSource() } });
    if (examples.length === 0) {
      holder.replaceChildren(Object.assign(document.createElement('p'), { className: 'muted small', textContent: 'No examples on this camera yet.' }));
      return;
    }
    const groups = new Map();
    for (const example of examples) {
      const key = `${example.region}\u0000${example.state}`;
      groups.set(key, [...(groups.get(key) ?? []), example]);
    }
    holder.replaceChildren(
      ...[...groups.values()].map((group) => {
        const { region, state } = group[0];
        const block = document.createElement('div');
        const title = document.createElement('h4');
        title.textContent = `${region}: ${state} (${group.length})`;
        const list = document.createElement('ul');
        list.className = 'states-thumbs';
        list.append(
          ...group.map((example, index) => {
            const item = document.createElement('li');
            const thumbnail = document.createElement('img');
            thumbnail.src = `data:image/jpeg;base64,${example.thumbnail}`;
            thumbnail.alt = `${region} when ${state}, taught ${new Date(example.created).toLocaleString()}`;
            const remove = smallButton('Remove', `Remove example ${index + 1} of ${region}: ${state}`);
            remove.addEventListener('click', () => removeExample(example));
            item.append(thumbnail, remove);
            return item;
          }),
        );
        block.append(title, list);
        return block;
      }),
    );
  } catch (error) {
    holder.replaceChildren(Object.assign(document.createElement('p'), { className: 'muted small', textContent: `Could not list the examples: ${error.message}` }));
  }
}

const refreshStates = () => Promise.all([listRegions(), listExamples()]);

async function saveRegion() {
  const name = document.getElementById('states-region-name').value.trim();
  const shape = typedShape();
  if (!shape) {
    statesStatus(shapeKind() === 'box' ? 'A box is four numbers: left, top, right, bottom.' : 'A polygon is at least three corners, each x,y.');
    return;
  }
  const region = Array.isArray(shape) ? { name, polygon: shape } : { name, bounding_box: shape };
  try {
    await statesCall('POST', regionsPath(), { body: { source_id: statesSource(), regions: [region] } });
    statesStatus(`Region ${name} saved.`);
    document.getElementById('states-region-name').value = '';
    showShape(undefined);
  } catch (error) {
    statesStatus(`Could not save region ${name}: ${error.message}`);
  }
  refreshStates();
}

async function removeRegion(name) {
  if (!window.confirm(`Remove region ${name} and its examples?`)) return;
  try {
    await statesCall('DELETE', `${regionsPath()}/${encodeURIComponent(name)}`, { query: { source_id: statesSource() } });
    statesStatus(`Region ${name} removed.`);
  } catch (error) {
    statesStatus(`Could not remove region ${name}: ${error.message}`);
  }
  refreshStates();
}

async function removeExample(example) {
  if (!window.confirm(`Remove this example of ${example.region}: ${example.state}?`)) return;
  try {
    await statesCall('DELETE', `${examplesPath()}/${encodeURIComponent(example.id)}`);
    statesStatus(`An example of ${example.region}: ${example.state} removed.`);
  } catch (error) {
    statesStatus(`Could not remove the example: ${error.message}`);
  }
  refreshStates();
}

// Teaches each region given a state the frame shown: one example each.
async function teachFrame() {
  const states = Object.fromEntries(
    [...document.querySelectorAll('#states-regions-table .states-state')].filter((input) => input.value.trim()).map((input) => [input.dataset.region, input.value.trim()]),
  );
  if (Object.keys(states).length === 0) {
    statesStatus('Type the state of at least one region in this frame first.');
    return;
  }
  const button = document.getElementById('states-teach');
  button.disabled = true;
  // Replaces the last "Taught …", so a second frame taught the same state is not read as already done.
  statesStatus(`Teaching ${Object.entries(states).map(([region, state]) => `${region}: ${state}`).join(', ')}\u2026`);
  let taught;
  try {
    ({ examples: taught } = await statesCall('POST', examplesPath(), { body: { raw_data: statesFrame.base64, source_id: statesSource(), states } }));
  } catch (error) {
    statesStatus(`Could not teach this frame: ${error.message}`);
  }
  await refreshStates();
  // Said once the regions and examples shown count the new ones.
  if (taught) statesStatus(`Taught ${taught.map((example) => `${example.region}: ${example.state}`).join(', ')}.`);
}

// Try it's "This was…" beside each region it judged: the image it sent becomes an example of the state typed; Try it asks again.
function stateCorrection(finding, { fields, image }) {
  const holder = document.createElement('div');
  holder.className = 'try-correct';
  holder.append(
    inlineNameForm('This was\u2026', `What ${finding.name} was in this image`, 'State', 'Teach', (state, button) =>
      runAction(
        button,
        () => statesCall('POST', examplesPath(), { body: { raw_data: image, source_id: fields.source_id ?? '', states: { [finding.name]: state } } }),
        async () => {
          await tryIt();
          showStatus(`${finding.name} taught as ${state}. ${document.getElementById('try-status').textContent}`);
          refreshStates();
        },
        (error) => showError('The correction was refused', error.message),
      ),
    ),
  );
  return holder;
}

if (statesCard()) {
  refreshStates();
  document.getElementById('states-frame-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const file = document.getElementById('states-frame').files[0];
    try {
      if (file) await showFrame(file);
    } catch (error) {
      statesStatus(error.message);
    }
    refreshStates();
  });
  document.getElementById('states-source').addEventListener('change', refreshStates);
  document.getElementById('states-use-try').addEventListener('click', async () => {
    try {
      await showFrame(document.getElementById('try-file').files[0]);
    } catch (error) {
      statesStatus(error.message);
    }
  });
  document.getElementById('states-region-form').addEventListener('submit', (event) => {
    event.preventDefault();
    saveRegion();
  });
  document.getElementById('states-teach').addEventListener('click', teachFrame);
  document.getElementById('states-region-shape').addEventListener('change', () => {
    pointsInput().placeholder = shapeKind() === 'box' ? 'left, top, right, bottom' : 'x,y x,y x,y …';
    showShape(undefined);
  });
  pointsInput().addEventListener('input', () => {
    drawnShape = typedShape();
    drawFrame();
  });
  const canvas = document.getElementById('states-canvas');
  canvas.addEventListener('pointerdown', (event) => {
    const point = framePoint(event);
    if (shapeKind() === 'polygon') {
      showShape([...(Array.isArray(drawnShape) ? drawnShape : []), point]);
      return;
    }
    dragStart = point;
    canvas.setPointerCapture(event.pointerId);
  });
  canvas.addEventListener('pointermove', (event) => {
    if (dragStart) showShape(boxBetween(dragStart, framePoint(event)));
  });
  canvas.addEventListener('pointerup', (event) => {
    if (dragStart) showShape(boxBetween(dragStart, framePoint(event)));
    dragStart = undefined;
  });
  window.addEventListener('resize', drawFrame);
  document.addEventListener('try-it-answered', ({ detail }) => {
    document.getElementById('states-use-try').hidden = false;
    for (const { finding, row } of detail.findings) {
      if (finding.state !== undefined) row.firstElementChild.append(stateCorrection(finding, detail));
    }
  });
}
