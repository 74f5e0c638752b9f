// detectd console: a licence-plate service's "Known plates" (the service's known-plates routes, called with its key as Try it calls the API).
// Runs after console.js (both deferred, in page order), whose serviceCall() and listRow() it uses.
'use strict';

const knownPlatesSection = () => document.getElementById('known-plates');

const knownPlatesCall = (method, suffix = '', body) => serviceCall(method, `${knownPlatesSection().dataset.knownPlatesPath}${suffix}`, body);

const knownPlatesStatus = (text) => (document.getElementById('known-plates-status').textContent = text);

async function listKnownPlates() {
  const count = document.getElementById('known-plates-count');
  try {
    const { known_plates: plates, distance } = await knownPlatesCall('GET');
    count.textContent = plates.length === 0 ? 'No known plates yet.' : `${plates.length} known plate${plates.length === 1 ? '' : 's'}`;
    document.getElementById('known-plates-distance').value = String(distance);
    document.querySelector('#known-plates-table tbody').replaceChildren(
      ...plates.map((plate) =>
        listRow(
          [['', plate.plate, false], ['Name ', plate.name, false], ['Added ', new Date(plate.created).toLocaleDateString(undefined, { dateStyle: 'medium' }), false]],
          [['Remove', `Remove ${plate.plate}`, () => removeKnownPlate(plate)]],
        ),
      ),
    );
  } catch (error) {
    count.textContent = `Could not list the known plates: ${error.message}`;
  }
}

async function removeKnownPlate(plate) {
  if (!window.confirm(`Remove ${plate.plate} (${plate.name})? Reads of it will no longer say the name.`)) return;
  try {
    await knownPlatesCall('DELETE', `/${encodeURIComponent(plate.id)}`);
    knownPlatesStatus(`${plate.plate} removed.`);
  } catch (error) {
    knownPlatesStatus(`Could not remove ${plate.plate}: ${error.message}`);
  }
  listKnownPlates();
}

async function addKnownPlate() {
  const plate = document.getElementById('known-plate').value;
  const name = document.getElementById('known-plate-name').value;
  try {
    const { known_plates: [added] } = await knownPlatesCall('POST', '', { plate, name });
    knownPlatesStatus(`${added.plate} (${added.name}) added.`);
    document.getElementById('known-plates-form').reset();
  } catch (error) {
    knownPlatesStatus(`Could not add ${plate}: ${error.message}`);
  }
  listKnownPlates();
}

async function saveKnownPlatesDistance() {
  try {
    const { distance } = await knownPlatesCall('PUT', '/settings', { distance: Number(document.getElementById('known-plates-distance').value) });
    knownPlatesStatus(`Reads now match a known plate up to ${distance} character${distance === 1 ? '' : 's'} off.`);
  } catch (error) {
    knownPlatesStatus(`Could not save the distance: ${error.message}`);
  }
}

if (knownPlatesSection()) {
  listKnownPlates();
  document.getElementById('known-plates-form').addEventListener('submit', (event) => {
    event.preventDefault();
    addKnownPlate();
  });
  document.getElementById('known-plates-distance-form').addEventListener('submit', (event) => {
    event.preventDefault();
    saveKnownPlatesDistance();
  });
}
