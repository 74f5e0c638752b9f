import type { AnalysisCall } from '../../tasks/analysis-call.js';
import { runTask } from '../../tasks/run-task.js';
import { type Findings, type Task, wireFindings } from '../../tasks/task.js';
import { type DeepStackPrediction, type DeepStackRequest, deepStackImage, findingBox } from './deepstack-form.js';

/** What a DeepStack route that sends the form's image to a task may be refused with, besides its own (a 404, …). */
export const IMAGE_ROUTE_FAILURES = {
  '400': 'No image, a bad image or form, a bad `min_confidence`.',
  '401': 'Missing or wrong key.',
  '429': 'The service\'s rate limit or quota is spent.',
  '503': 'Overloaded or past the deadline.',
};

/** The form's image run by `task` at the form's `min_confidence` (absent: `fallback`, else the task's own default): its findings, and them as DeepStack's `predictions` (each one's name as `label`; a finding about the whole image has the whole image for its box). */
export async function predictionsOf(task: Task, request: DeepStackRequest, call: AnalysisCall, fallback?: number): Promise<{ readonly findings: Findings; readonly predictions: DeepStackPrediction[] }> {
  const parameters = task.parseParameters({ minConfidence: request.minConfidence ?? fallback }, undefined, call.scheduler);
  const findings = await runTask(task, deepStackImage(request), parameters, call);
  return { findings, predictions: wireFindings(findings).map((finding) => ({ label: finding.name, confidence: finding.confidence, ...findingBox(finding, findings) })) };
}
