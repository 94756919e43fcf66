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
  const href = m ? (m[1] ?? m[2] ?? m[3] ?? '').trim() : '';
  return href && !/^\s*javascript:/i.test(href) ? decodeEntities(href) : undefined;
}

/** True when `s` holds at least one HTML tag the converter knows. */
export function hasHtml(s: string): boolean {
  return ANY_TAG.test(s);
}

/** `s` as text (see above); unchanged when it holds no HTML tag. */
export function htmlToText(s: string): string {
  if (!hasHtml(s)) return s;
  let out = '';
  let last = 0;
  let pre = 0;
  /** Open links: their href and where their text starts in `out`. */
  const links: { href?: string; start: number }[] = [];
  const text = (chunk: string) => (pre > 0 ? chunk : chunk.replace(/[ \t\r\n]+/g, ' '));
  for (const m of s.matchAll(TAG)) {
    out += text(s.slice(last, m.index));
    last = m.index + m[0].length;
    const closing = m[1] === '/';
    const name = m[2]!.toLowerCase();
    switch (name) {
      case 'br':
        out += '\n';
        break;
      case 'p':
      case 'div':
      case 'blockquote':
      case 'table':
      case 'dl':
      case 'details':
        out += '\n\n';
        break;
      case 'ul':
      case 'ol':
      case 'tr':
      case 'dt':
      case 'dd':
      case 'summary':
        out += '\n';
        break;
      case 'li':
        if (!closing) out += '\n- ';
        break;
      case 'td':
      case 'th':
        if (!closing) out += ' ';
        break;
      case 'hr':
        out += '\n\n---\n\n';
        break;
      case 'code':
      case 'tt':
      case 'kbd':
      case 'samp':
        if (pre === 0) out += '`';
        break;
      case 'pre':
        if (closing) pre = Math.max(0, pre - 1);
        else pre++;
        out += '\n```\n';
        break;
      case 'a':
        if (!closing) links.push({ href: hrefOf(m[3] ?? ''), start: out.length });
        else {
          const link = links.pop();
          if (link?.href) {
            const label = out.slice(link.start).trim();
            out = label && label !== link.href ? `${out.slice(0, link.start)}[${label}](${link.href})` : `${out.slice(0, link.start)}${link.href}`;
          }
        }
        break;
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        out += closing ? '\n\n' : `\n\n${'#'.repeat(Number(name[1]))} `;
        break;
      default:
        // b, strong, em, i, span, ...: the text stays, the tag goes.
        break;
    }
  }
  out += text(s.slice(last));
  return decodeEntities(out)
    .split('\n')
    .map((l) => l.replace(/[ \t]+$/, ''))
    .join('\n')
    .replace(/\n- *\n/g, '\n')
    .replace(/^[ \t]+(?=\S)/gm, (sp, offset: number, all: string) => (inFence(all, offset) ? sp : ''))
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** True when `offset` lies inside a ``` fence of `all`. */
function inFence(all: string, offset: number): boolean {
  let n = 0;
  for (let i = all.indexOf('```'); i !== -1 && i < offset; i = all.indexOf('```', i + 3)) n++;
  return n % 2 === 1;
}
