/**
 * A response body as the tester shows it: JSON indented by two spaces (when the response says
 * it is JSON, or has no type and reads as JSON), anything else as it came. A body that does not
 * parse (cut short, or not JSON after all) is shown as it came too.
 */

/** The response's Content-Type, whatever the case of the header's name. */
export function contentTypeOf(headers: Readonly<Record<string, string>> | undefined): string | undefined {
  if (!headers) return undefined;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === 'content-type') return v;
  return undefined;
}

function isJsonType(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json') || type === 'text/json';
}

export function prettyBody(body: string, contentType: string | undefined): string {
  const trimmed = body.trim();
  const looksJson = trimmed.startsWith('{') || trimmed.startsWith('[');
  if (contentType ? !isJsonType(contentType) : !looksJson) return body;
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
