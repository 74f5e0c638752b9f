/** The configurations the example sends, to show their shape. */
const EXAMPLE_CONFIGURATIONS = [{ parameter: 'ConfidenceThreshold', value: '0.5' }];

/** `text` as one shell word: as it is when it holds nothing the shell would read, else single-quoted. */
function shellWord(text: string): string {
  return /^[\w./:@%+,=-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command the README, the console ("Copy command") and /docs give for calling the object
 * detection API at `endpoint` with the image file at `imagePath` and the key in `$DETECTD_API_KEY`.
 * It streams the JSON body into curl's stdin: the base64 of a photo is far longer than the 128 KiB
 * Linux allows one argument (`-d "$(base64 …)"` fails with "Argument list too long"). `base64 <`
 * reads stdin on GNU and macOS alike (macOS's takes no `-w0`); GNU wraps its output and macOS's
 * does not, so `tr` removes every line break. POSIX sh, bash and zsh run it as pasted.
 */
export function objectDetectionCommand(endpoint: string, imagePath: string): string {
  const after = `", "configurations": ${JSON.stringify(EXAMPLE_CONFIGURATIONS).replaceAll('","', '", "').replaceAll('":"', '": "')}}`;
  return [
    `{ printf '{"raw_data": "'; base64 < ${shellWord(imagePath)} | tr -d '\\n'; printf '${after}'; } |`,
    `  curl -s ${shellWord(endpoint)} \\`,
    `    -H "Authorization: ApiKey $DETECTD_API_KEY" -H "Content-Type: application/json" --data-binary @-`,
  ].join('\n');
}
