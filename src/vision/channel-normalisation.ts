/**
 * Per-channel normalisation of a model's input: value = (pixel × scale − mean) / std, each channel its
 * own mean and standard deviation (torchvision's ImageNet input: scale 1/255, mean (0.485, 0.456, 0.406),
 * std (0.229, 0.224, 0.225)). A model that normalises every channel alike gives the same value for each
 * (`sameForEveryChannel`): one code path for both.
 */
export interface ChannelNormalisation {
  readonly scale: number;
  /** R, G, B. */
  readonly mean: readonly [number, number, number];
  readonly std: readonly [number, number, number];
}

/** value = (pixel × scale − mean) / std for every channel alike (YOLO: pixel / 255; UltraFace: (pixel − 127) / 128). */
export const sameForEveryChannel = (scale: number, mean = 0, std = 1): ChannelNormalisation => ({ scale, mean: [mean, mean, mean], std: [std, std, std] });

/** The normalisation as value = pixel × multiplier + shift, per channel (R, G, B). */
export function channelAffine({ scale, mean, std }: ChannelNormalisation): { readonly multiplier: readonly number[]; readonly shift: readonly number[] } {
  return { multiplier: std.map((deviation) => scale / deviation), shift: mean.map((value, channel) => -value / std[channel]) };
}

/** What `pixel` (0–255) of `channel` (0–2: R, G, B) becomes: what a padding of that colour holds. */
export const normalisedValue = ({ scale, mean, std }: ChannelNormalisation, pixel: number, channel: number) => (pixel * scale - mean[channel]) / std[channel];
