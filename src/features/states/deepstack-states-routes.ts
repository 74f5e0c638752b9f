import { runTask } from '../../tasks/run-task.js';
import { type Task, wireFindings } from '../../tasks/task.js';
import { type DeepStackTaskRoute, deepStackImage, findingBox } from '../../transports/deepstack/deepstack-form.js';
import { IMAGE_ROUTE_FAILURES } from '../../transports/deepstack/deepstack-predictions.js';
import type { StateStore } from './state-store.js';

/**
 * DeepStack's custom-model route for the states task: `POST /v1/vision/custom/<camera>` with a
 * states service's key (or from its keyless addresses) judges the regions of that source (its
 * `source_id`), one prediction per region, `label` its state and the region's box — what Blue Iris,
 * Agent DVR and Home Assistant's DeepStack integrations read of a custom model, unmodified. A name
 * a loaded model has stays that model's (objects' custom route); custom/list lists the service's cameras.
 */
export const deepStackStatesRoutes = (task: Task, store: Pick<StateStore, 'sources'>): DeepStackTaskRoute[] => [
  {
    path: '/v1/vision/custom/:model',
    // CodeProject.AI's custom/list lists the service's cameras (those with regions) beside the models.
    namesOwn: (service) => store.sources(service.id),
    command: 'custom',
    operationId: 'deepstack-custom-states',
    summary: 'the regions of that camera (source_id) of a states service, one prediction per region, `label` its state',
    formFields: { image: 'The camera\'s frame (JPEG, PNG, WebP, …).', min_confidence: 'A number from 0 to 1: regions judged less surely are left out; default 0 (every region).', api_key: 'The states service\'s API key (or send `Authorization`).' },
    answer: '`{"success": true, "predictions": [{"label": "<state>", "confidence", "x_min", "y_min", "x_max", "y_max"}], …}`, one per region, most confident first',
    failures: IMAGE_ROUTE_FAILURES,
    async respond(request, call) {
      const findings = await runTask(task, deepStackImage(request), task.parseParameters({ minConfidence: request.minConfidence }, undefined, call.scheduler), { ...call, labels: { sourceId: request.ownName } });
      return { predictions: wireFindings(findings).map((finding) => ({ label: finding.state, confidence: finding.confidence, ...findingBox(finding, findings) })) };
    },
  },
];
