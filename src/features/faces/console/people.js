// detectd console: a face service's "People" (its DeepStack face routes and its people's REST corrections, called with its
// key as Try it calls the API): the people registered, registering one from photos, and Try it's corrections of the faces
// it found ("Not <name>", "Add to…").
// Runs after console.js (both deferred, in page order), whose fetchKey(), overview(), smallButton(), listRow(), runAction(),
// inlineNameForm(), tryIt(), showStatus() and showError() it uses.
'use strict';

// A call of the service's DeepStack face routes (list, register, delete), with its key.
async function faceCall(route, form) {
  const apiKey = await fetchKey();
  const response = await fetch(`/v1/vision/face/${route}`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}` }, body: form });
  const body = await response.json().catch(() => ({}));
  if (!body.success) throw new Error(body.error ?? `the server answered ${response.status}`);
  return body;
}

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

// Try it's correction of one face it found in `image` (base64, as sent): "Not <name>" beside a named face, "Add to…" (a
// person's name) beside any other. Done, Try it asks again, so the table shows what the correction changed, and the People list follows.
function faceCorrection(face, image) {
  const cell = document.createElement('div');
  cell.className = 'try-correct';
  const box = face.bounding_box;
  const apply = (button, userid, verb) =>
    runAction(
      button,
      () => correctPerson(userid, verb, { raw_data: image, box: boxText(box) }),
      async ({ person, warnings }) => {
        const done = verb === 'not'
          ? `${person.userid}: this face is not them (${plural(person.negatives, '\u201cnot this person\u201d face', '\u201cnot this person\u201d faces')}).`
          : `Face added to ${person.userid} (${plural(person.photos, 'photo', 'photos')})${weakText(warnings)}.`;
        await tryIt();
        showStatus(`${done} ${document.getElementById('try-status').textContent}`);
        listPeople();
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
  // Beside each face Try it found, under its name (so the table keeps its three columns on a phone): its correction.
  document.addEventListener('try-it-answered', ({ detail }) => {
    for (const { finding, row } of detail.findings) {
      if (finding.bounding_box) row.firstElementChild.append(faceCorrection(finding, detail.image));
    }
  });
  document.getElementById('people-correction-file').addEventListener('change', sendChosenPhoto);
  document.getElementById('people-form').addEventListener('submit', (event) => {
    event.preventDefault();
    registerPerson();
  });
}
