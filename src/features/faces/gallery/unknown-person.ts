/** What every door calls a face it names no one for: DeepStack's `userid`, CompreFace's `subject`, a face finding's `name`. */
export const UNKNOWN_PERSON = 'unknown';
