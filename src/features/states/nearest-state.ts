/** One state's examples of a region: L2-normalised embeddings, `dimensions` values each, one after another. */
export interface StateExamples {
  readonly state: string;
  readonly embeddings: Float32Array;
}

/** How a region is judged: the k nearest examples of each state, and the lead the best state needs over the next. */
export interface JudgeSettings {
  readonly neighbours: number;
  readonly margin: number;
}

export interface StateJudgement {
  /** The nearest state, or undefined when none leads by the margin (or the region has no examples of two states). */
  readonly state: string | undefined;
  /** Best state's score minus the runner-up's (cosine similarity, mean of k). */
  readonly lead: number;
  /** Whether two taught states were compared: false for a region taught fewer. */
  readonly compared: boolean;
}

/** Mean of the `k` largest dot products of `query` with the examples. */
function score(query: Float32Array, examples: Float32Array, k: number): number {
  const dimensions = query.length;
  const count = examples.length / dimensions;
  const similarities = new Float32Array(count);
  for (let e = 0; e < count; e++) {
    let dot = 0;
    for (let d = 0, at = e * dimensions; d < dimensions; d++, at++) dot += query[d] * examples[at];
    similarities[e] = dot;
  }
  similarities.sort().reverse();
  const taken = Math.min(k, count);
  let sum = 0;
  for (let i = 0; i < taken; i++) sum += similarities[i];
  return sum / taken;
}

/**
 * A region's state from its nearest examples: each state is scored by the mean similarity of its
 * `neighbours` nearest examples; the best state is the answer when it leads the next by `margin`.
 * With a single taught state there is nothing to tell it from, so the answer is unsure.
 */
export function judgeState(query: Float32Array, states: readonly StateExamples[], settings: JudgeSettings): StateJudgement {
  const scored = states
    .filter((examples) => examples.embeddings.length > 0)
    .map((examples) => ({ state: examples.state, score: score(query, examples.embeddings, settings.neighbours) }))
    .sort((a, b) => b.score - a.score);
  if (scored.length < 2) return { state: undefined, lead: 0, compared: false };
  const lead = scored[0].score - scored[1].score;
  return { state: lead >= settings.margin ? scored[0].state : undefined, lead, compared: true };
}

/** `vector` scaled to unit length (in place), so a dot product is a cosine similarity. */
export function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const length = Math.sqrt(sum) || 1;
  for (let i = 0; i < vector.length; i++) vector[i] /= length;
  return vector;
}
