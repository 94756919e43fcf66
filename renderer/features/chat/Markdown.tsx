/**
 * A model's reply as Markdown (GitHub flavour: tables, task lists, strikethrough). Raw HTML
 * is never rendered; links open outside the app; code blocks have a Copy button.
 */
import { memo, useRef, useState, type ClassAttributes, type HTMLAttributes } from 'react';
import ReactMarkdown, { type Components, type ExtraProps } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { chatStrings as s } from '../../i18n/chat-strings';

const PLUGINS = [remarkGfm];

type PreProps = ClassAttributes<HTMLPreElement> & HTMLAttributes<HTMLPreElement> & ExtraProps;

function languageOf(node: ExtraProps['node']): string {
  const code = node?.children.find((c) => c.type === 'element' && c.tagName === 'code');
  const cls = code && code.type === 'element' ? code.properties.className : undefined;
  const list: string[] = Array.isArray(cls) ? cls.map(String) : typeof cls === 'string' ? (cls as string).split(' ') : [];
  return list.find((c) => c.startsWith('language-'))?.slice('language-'.length) ?? '';
}

export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (an insecure origin): the old way.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

function CodeBlock({ node, children, ref: _ref, ...rest }: PreProps) {
  const preRef = useRef<HTMLPreElement>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const lang = languageOf(node);
  const onCopy = () => {
    const text = preRef.current?.textContent ?? '';
    void copyText(text.replace(/\n$/, '')).then((ok) => {
      setCopied(ok ? 'yes' : 'failed');
      window.setTimeout(() => setCopied(null), 1500);
    });
  };
  return (
    <div className="code-block">
      <div className="code-block-bar">
        <span className="muted">{lang}</span>
        <button type="button" className="code-copy" data-testid="code-copy" aria-label={s.markdown.copyLabel(lang)} onClick={onCopy}>
          {copied === 'yes' ? s.markdown.copied : copied === 'failed' ? s.markdown.copyFailed : s.markdown.copy}
        </button>
      </div>
      <pre ref={preRef} {...rest}>
        {children}
      </pre>
    </div>
  );
}

const COMPONENTS: Components = {
  pre: CodeBlock,
  a: ({ node: _node, children, ...rest }) => (
    <a {...rest} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  ),
};

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={PLUGINS} components={COMPONENTS} skipHtml>
        {text}
      </ReactMarkdown>
    </div>
  );
});
