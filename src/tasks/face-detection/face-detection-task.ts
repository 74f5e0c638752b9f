import { DetectdError } from '../../core/errors.js';
import type { FaceRecognition } from '../face-recognition.js';
import type { FoundResponse } from '../found-response.js';
import type { ImageParameters } from '../image-parameters.js';
import { decodeRawData } from '../raw-data.js';
import type { ApiVersion, FrameAnalysis, FrameCall, ImageRequestBody, SentParameters, Task, TaskCall, UploadRequest } from '../task.js';
import { FACE_PARAMETER_RULES, faceParameters, parseFaceConfigurations } from './face-parameters.js';
import { deepStackFaceRoutes } from './deepstack-face.js';
import { findFaces } from './find-faces.js';

/** The service type, as the Nvision API names it. */
const FACE_DETECTION = 'face-detection';
const REQUEST_SCHEMA = 'face-detection-request';


/** The JSON API's answer (schemas/face-detection-response.json): the object-detection answer's shape, faces in `detected_faces`. */
export interface FaceDetectionReply {
  service_id: string;
  frame_id?: string;
  source_id?: string;
  detected_faces: FoundResponse['found'];
  raw_data?: string;
}

/**
 * The face-detection task: Nvision's face service type (`POST /api/v1/face-detection`, both
 * streams with the faces in `detected_faces`), with recognition against each service's gallery.
 * A face's `name` is the registered person's userid when recognized, `unknown` when the service
 * has people but none matches, `face` when it has nobody registered; `parent` is always `face`.
 */
export function faceDetectionTask(recognition: FaceRecognition): Task<ImageParameters> {
  const answer = async (bytes: Buffer, parameters: ImageParameters, call: TaskCall, labels: Pick<FaceDetectionReply, 'frame_id' | 'source_id'>): Promise<FaceDetectionReply> => {
    const { analysis, response } = await findFaces({ bytes, scheduler: call.scheduler, limits: call.limits, signal: call.signal }, parameters, call.service, recognition, call.context.timings);
    call.context.objects = analysis.detections.length;
    return { service_id: call.service.id, ...labels, detected_faces: response.found, raw_data: response.visualized_image };
  };

  return {
    type: FACE_DETECTION,
    detects: 'faces',
    summary: 'Detect faces in one image, and recognize registered people',
    requestSchema: REQUEST_SCHEMA,
    responseSchema: 'face-detection-response',
    parameters: FACE_PARAMETER_RULES,
    answerField: 'detected_faces',
    exampleFields: { ConfidenceThreshold: '0.5' },
    async runJson(body: unknown, call: TaskCall): Promise<FaceDetectionReply> {
      const validity = call.schemas.check(REQUEST_SCHEMA, body);
      if (!validity.ok) throw new DetectdError('invalid_request', validity.problem);
      const request = body as ImageRequestBody;
      const parameters = parseFaceConfigurations(request.configurations, call.version);
      const base64Started = performance.now();
      const bytes = decodeRawData(request.raw_data);
      call.context.timings.base64 = performance.now() - base64Started;
      return answer(bytes, parameters, call, { frame_id: request.frame_id, source_id: request.source_id });
    },
    runUpload(bytes: Buffer, upload: UploadRequest, call: TaskCall): Promise<FaceDetectionReply> {
      const request = upload as Omit<ImageRequestBody, 'raw_data'>;
      return answer(bytes, parseFaceConfigurations(request.configurations, call.version), call, { frame_id: request.frame_id, source_id: request.source_id });
    },
    parseParameters(sent: SentParameters, version: ApiVersion): ImageParameters {
      return faceParameters(sent.configurations, sent.targetClasses, version);
    },
    async analyseFrame(image: Buffer, parameters: ImageParameters, call: FrameCall): Promise<FrameAnalysis> {
      const { analysis, response } = await findFaces(
        { bytes: image, scheduler: call.scheduler, limits: call.limits, signal: call.signal, turn: call.turn },
        parameters,
        call.service,
        recognition,
        call.context.timings,
      );
      call.context.objects = analysis.detections.length;
      return { width: analysis.width, height: analysis.height, found: response.found, tracked: analysis.detections, visualizedImage: response.visualized_image };
    },
    deepStack: { routes: deepStackFaceRoutes(recognition) },
  };
}
