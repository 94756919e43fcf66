/**
 * Descriptions written in HTML (Stripe's `<p>…<code>…</code> <a href="…">…</a></p>`) as the
 * Markdown-like text the rest of the importer and the models read: paragraphs and line breaks
 * kept, `<code>` in backticks, `<pre>` fenced, links as `[text](href)`, list items as "- ",
 * every other tag dropped and the character references decoded. Text with no HTML tag in it
 * (Markdown, plain text, `Array<string>`) is returned unchanged.
 */

const TAGS =
  'a|abbr|b|blockquote|br|code|dd|del|details|div|dl|dt|em|h[1-6]|hr|i|img|ins|kbd|li|ol|p|pre|s|samp|small|span|strong|sub|summary|sup|table|tbody|td|tfoot|th|thead|tr|tt|u|ul|var';
const ANY_TAG = new RegExp(`<\\/?(?:${TAGS})(?:\\s[^<>]*)?\\/?>`, 'i');
const TAG = new RegExp(`<(\\/?)(${TAGS})((?:\\s[^<>]*)?)\\/?>`, 'gi');

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', ndash: '–', mdash: '—', hellip: '…', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', copy: '©', reg: '®', trade: '™', times: '×' };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

function hrefOf(attrs: string): string | undefined {
  const m = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(attrs);
  const href = decodeEntities(m ? (m[1] ?? m[2] ?? m[3] ?? '').trim() : '');
  // Checked once decoded and without the whitespace and control characters a browser skips.
  const scheme = [...href].filter((ch) => ch.charCodeAt(0) > 0x20 && !(ch.charCodeAt(0) >= 0x7f && ch.charCodeAt(0) <= 0x9f)).join('').toLowerCase();
  return href && !/^(?:javascript|vbscript|data):/.test(scheme) ? href : undefined;
}

/** The most of a description read: the importer keeps 16,384 characters of it at most, so four times that is plenty. */
export const HTML_INPUT_MAX = 65_536;

/** True when `s` holds at least one HTML tag the converter knows. */
export function hasHtml(s: string): boolean {
  return ANY_TAG.test(s);
}

/** `s` as text (see above); unchanged when it holds no HTML tag. */
export function htmlToText(input: string): string {
  if (!hasHtml(input)) return input;
  // Bounded work whatever the document holds: one pass over at most HTML_INPUT_MAX characters.
  const s = input.length > HTML_INPUT_MAX ? input.slice(0, HTML_INPUT_MAX) : input;
  /** The text so far, in parts (a link's text is the parts since it opened). */
  const parts: string[] = [];
  const out = {
    push: (t: string) => void parts.push(t),
  };
  let last = 0;
  let pre = 0;
  /** Open links: their href and where their text starts in `parts`. */
  const links: { href?: string; start: number }[] = [];
  const text = (chunk: string) => (pre > 0 ? chunk : chunk.replace(/[ \t\r\n]+/g, ' '));
  for (const m of s.matchAll(TAG)) {
    out.push(text(s.slice(last, m.index)));
    last = m.index + m[0].length;
    const closing = m[1] === '/';
    const name = m[2]!.toLowerCase();
    switch (name) {
      case 'br':
        out.push('\n');
        break;
      case 'p':
      case 'div':
      case 'blockquote':
      case 'table':
      case 'dl':
      case 'details':
        out.push('\n\n');
        break;
      case 'ul':
      case 'ol':
      case 'tr':
      case 'dt':
      case 'dd':
      case 'summary':
        out.push('\n');
        break;
      case 'li':
        if (!closing) out.push('\n- ');
        break;
      case 'td':
      case 'th':
        if (!closing) out.push(' ');
        break;
      case 'hr':
        out.push('\n\n---\n\n');
        break;
      case 'code':
      case 'tt':
      case 'kbd':
      case 'samp':
        if (pre === 0) out.push('`');
        break;
      case 'pre':
        if (closing) pre = Math.max(0, pre - 1);
        else pre++;
        out.push('\n```\n');
        break;
      case 'a':
        if (!closing) links.push({ href: hrefOf(m[3] ?? ''), start: parts.length });
        else {
          const link = links.pop();
          if (link?.href) {
            const label = parts.splice(link.start).join('').trim();
            parts.push(label && label !== link.href ? `[${label}](${link.href})` : link.href);
          }
        }
        break;
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        out.push(closing ? '\n\n' : `\n\n${'#'.repeat(Number(name[1]))} `);
        break;
      default:
        // b, strong, em, i, span, ...: the text stays, the tag goes.
        break;
    }
  }
  out.push(text(s.slice(last)));
  // Lines: trailing blanks off; leading blanks off outside ``` fences (kept inside, where they are code).
  let fenced = false;
  const lines = decodeEntities(parts.join(''))
    .split('\n')
    .map((l) => {
      const line = l.replace(/[ \t]+$/, '');
      const kept = fenced ? line : line.replace(/^[ \t]+/, '');
      fenced = fenced !== ((line.match(/```/g)?.length ?? 0) % 2 === 1);
      return kept;
    });
  return lines
    .join('\n')
    .replace(/\n- *\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
