/** `a` or `an` before `word` (`an object-detection service`, `a face-detection service`), by its first letter: enough for the words detectd puts after it (service types). */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}
