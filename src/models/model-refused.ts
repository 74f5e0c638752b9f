/** A model file the server will not serve, and why, in words an operator can act on. */
export class ModelRefused extends Error {
  constructor(
    readonly modelPath: string,
    readonly reason: string,
  ) {
    super(`cannot serve ${modelPath}: ${reason}`);
  }
}
