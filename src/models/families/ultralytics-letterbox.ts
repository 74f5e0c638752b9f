import { sameForEveryChannel } from '../../vision/channel-normalisation.js';
import type { InputSize, LetterboxSpec } from '../../vision/letterbox.js';

/** Ultralytics' letterbox, which its COCO exports and the plate detector (YOLOv9) were trained with: RGB, pixel / 255, centred, padded with grey 114. */
export const ultralyticsLetterbox = ({ width, height }: InputSize): LetterboxSpec => ({ width, height, placement: 'centre', channelOrder: 'rgb', normalise: sameForEveryChannel(1 / 255), padValue: 114 });
