/**
 * The OpenAPI importer's warnings, sorted for the person: notes on what the importer did that
 * needs nothing from them (a GET's documented body left out, a schema shortened to fit, an
 * OAuth2 scheme set up as a pasted token) and problems they must act on (a user name to fill
 * in, auth left out, a schema that could not be used). Notes are shown folded and neutral,
 * problems in red. The wording matched is the importer's (electron/core/transfer/openapi).
 */

const NOTES: readonly RegExp[] = [
  /^a (GET|HEAD|DELETE) request cannot have a body: the request body was left out$/,
  /^size budget \(/,
  /^argument schemas simplified to their type to keep within the size budget/,
  /^optional arguments left out to keep within the size budget/,
  /^a schema is too large: parts of it were replaced by \{\}/,
  /^a schema is nested too deeply: its deepest parts were replaced by \{\}/,
  /^the recursive schema .* was cut at its second use/,
  /^the pattern .* is not a JavaScript regular expression: left out$/,
  /^'[^']*' is OAuth2 without a client-credentials flow: set up as a bearer token you paste as the secret$/,
  /^'[^']*' is OpenID Connect: set up as a bearer token you paste as the secret$/,
  /^the (query|header|cookie|path) parameter '[^']*' is (an array or object|serialised content): it is sent as one string/,
  /^the cookie parameter '[^']*' was left out \(optional cookies share one header\)$/,
];

export function isNote(warning: string): boolean {
  return NOTES.some((re) => re.test(warning));
}

export interface SortedWarnings {
  problems: string[];
  notes: string[];
}

export function sortWarnings(warnings: readonly string[]): SortedWarnings {
  const problems: string[] = [];
  const notes: string[] = [];
  for (const w of warnings) (isNote(w) ? notes : problems).push(w);
  return { problems, notes };
}

/** How many notes and problems the operations have in all. */
export function countWarnings(operations: readonly { warnings: readonly string[] }[]): { problems: number; notes: number } {
  let problems = 0;
  let notes = 0;
  for (const op of operations) for (const w of op.warnings) if (isNote(w)) notes++;
  else problems++;
  return { problems, notes };
}
