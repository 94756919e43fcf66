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
    JSON.parse(body);
  } catch {
    return body;
  }
  return reindent(trimmed);
}

/**
 * Valid JSON indented by two spaces, its tokens exactly as the server wrote them: a number is
 * never rounded (12345678901234567890 stays so, 1.10 keeps its 0) and a repeated key stays twice.
 */
function reindent(json: string): string {
  let out = '';
  let depth = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < json.length && json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      out += json.slice(i, j + 1);
      i = j;
    } else if (c === '{' || c === '[') {
      // An empty object or array stays on its line.
      let j = i + 1;
      while (j < json.length && /\s/.test(json[j]!)) j++;
      if (json[j] === (c === '{' ? '}' : ']')) {
        out += c + json[j];
        i = j;
      } else {
        depth++;
        out += c + newline();
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
    } else if (c === ',') {
      out += `,${newline()}`;
    } else if (c === ':') {
      out += ': ';
    } else if (!/\s/.test(c)) {
      out += c;
    }
  }
  return out;
}
