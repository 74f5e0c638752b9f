/** The parameter the example sets, to show how parameters travel in a form. */
const EXAMPLE_PARAMETER = { name: 'ConfidenceThreshold', value: '0.5' };

/** `text` as one shell word: as it is when it holds nothing the shell would read, else single-quoted. */
function shellWord(text: string): string {
  return /^[\w./:@%+,=-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command the README, the console ("Copy command") and /docs give for calling an image task's
 * API (every task takes the same upload) at `endpoint` with the image file at `imagePath` and the key in `$DETECTD_API_KEY`.
 * A form upload: curl reads the file itself. Base64 through a command-line argument is what fails
 * (`-d "$(base64 …)"`: a photo's base64 is longer than the 128 KiB Linux allows one argument, and
 * `base64 -w0` is GNU-only). The same text runs in POSIX sh, bash and zsh, on Linux and macOS.
 */
export function uploadCommand(endpoint: string, imagePath: string): string {
  return [
    `curl -s ${shellWord(endpoint)} \\`,
    `  -H "Authorization: ApiKey $DETECTD_API_KEY" \\`,
    `  -F ${shellWord(`image=@${imagePath}`)} -F ${EXAMPLE_PARAMETER.name}=${EXAMPLE_PARAMETER.value}`,
  ].join('\n');
}
