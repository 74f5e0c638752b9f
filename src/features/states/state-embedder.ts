import type { Embedder } from '../../models/embedder.js';

/**
 * What makes an embedder's vectors, as an example records it: its name, its input size and its vector
 * length (`mobilenetv2-12-int8-emb 64x64 1280`). The same weights at another input size embed
 * differently, so the size is part of it; a file replaced under the same name, size and length is not told apart.
 */
export const embedderIdentity = (embedder: Pick<Embedder, 'name' | 'inputSize' | 'size'>): string => `${embedder.name} ${embedder.inputSize.width}x${embedder.inputSize.height} ${embedder.size}`;
