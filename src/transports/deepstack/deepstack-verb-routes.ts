import { type Task, type TaskVerb, wireFindings } from '../../tasks/task.js';
import type { DeepStackRespond, DeepStackTaskRoute } from './deepstack-form.js';
import { IMAGE_ROUTE_FAILURES, predictionsOf } from './deepstack-predictions.js';

const VERB_FAILURES = { ...IMAGE_ROUTE_FAILURES, '503': 'Overloaded, past the deadline, or a model the task composes is not loaded.' };

/**
 * A task's own verb in DeepStack's form: the form's `image` at its `min_confidence` (absent: the
 * task's default) → its findings as `predictions` (`label` the name; a finding about the whole
 * image has the whole image for its box), and as the task says them, in `findings`.
 */
function respond(task: Task): DeepStackRespond {
  return async (request, call) => {
    const { findings, predictions } = await predictionsOf(task, request, call);
    return { predictions, fields: { findings: wireFindings(findings) } };
  };
}

/** `/v1/vision/<verb>` for a task that declares a verb of its own (TaskAbilities.verb): DeepStack's way to call a module by what it does. */
export const deepStackVerbRoutes = (task: Task, verb: TaskVerb): DeepStackTaskRoute[] => [
  {
    path: `/v1/vision/${verb.name}`,
    command: verb.name,
    operationId: `deepstack-${verb.name}`,
    summary: `${verb.summary} (the ${task.type} task's own verb)`,
    formFields: {
      image: 'The image file (JPEG, PNG, WebP, …).',
      min_confidence: `A number from 0 to 1; default ${task.parameters.ConfidenceThreshold?.defaultValue ?? 'the task\'s own'}.`,
      api_key: 'The API key (or send `Authorization`).',
    },
    answer: `\`{"success": true, "predictions": [{"label", "confidence", "x_min", "y_min", "x_max", "y_max"}], "findings": [<the ${task.answerField} of its REST answer>], "count", "message", "command": "${verb.name}", …}\``,
    failures: VERB_FAILURES,
    respond: respond(task),
  },
];
