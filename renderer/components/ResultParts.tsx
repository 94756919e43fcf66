/**
 * A tool's result that is content (shared/model/result-content.ts), part by part: text as text,
 * an image as an image (click for its full size), a sound as a player, an embedded text resource
 * folded under its URI, a blob as its URI, size and a download, a link as its URI, name and
 * description; each part's annotations in small print. "Raw JSON" shows the value as it is
 * (`raw`, drawn only while it is on). Used by the chat's tool card, the tester and Inspect.
 */
import { useId, useMemo, useState, type ReactNode } from 'react';
import type { McpResourceContent } from '../../shared/model/mcp-client';
import type { ResultPart } from '../../shared/model/result-content';
import { useOp } from '../api/hooks';
import { FieldError } from './Field';
import { resultStrings as s } from '../i18n/result-strings';
import { saveFile } from './save-file';
import { dataUrlToBytes, dataUrlType, partViews, type Download, type PartView } from './result-parts';
import './result-parts.css';

export interface ResultPartsProps {
  parts: readonly ResultPart[];
  /** The MCP server's bundle that gave the result: its links can be opened (read from it) in place. */
  bundleId?: string | undefined;
  /** Names the images and sounds (their alt text and labels) and the files they download as. */
  toolName: string;
  /** The value as raw JSON, drawn when the user asks for it. */
  raw: () => ReactNode;
  testId?: string;
}

export function ResultParts({ parts, toolName, raw, testId, bundleId }: ResultPartsProps) {
  const [showRaw, setShowRaw] = useState(false);
  const views = useMemo(() => partViews(parts, toolName), [parts, toolName]);
  const bodyId = useId();
  return (
    <div className="result-parts" data-testid={testId} aria-label={s.label(toolName)} role="group">
      <div className="result-parts-bar">
        <button type="button" className="link-button" aria-pressed={showRaw} aria-controls={bodyId} aria-label={s.rawLabel(toolName)} data-testid="result-raw-toggle" onClick={() => setShowRaw((r) => !r)}>
          {s.raw}
        </button>
      </div>
      <div id={bodyId}>
        {showRaw ? (
          raw()
        ) : (
          <ul className="result-part-list">
            {views.map((v, i) => (
              <li key={i} className={`result-part part-${v.kind}`} data-testid="result-part" data-kind={v.kind}>
                <Part view={v} />
                {v.kind === 'link' && bundleId && <LinkedResource bundleId={bundleId} uri={v.uri} toolName={toolName} />}
                {v.notes && <p className="part-notes">{v.notes}</p>}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

function Part({ view: v }: { view: PartView }) {
  switch (v.kind) {
    case 'text':
      return <p className="part-text">{v.text}</p>;
    case 'image':
      return (
        <>
          {v.src ? <ZoomableImage src={v.src} alt={v.alt} /> : <p className="muted">{v.tooLarge}</p>}
          <Caption text={v.caption} download={v.download} />
        </>
      );
    case 'audio':
      return (
        <>
          {v.src ? <audio controls preload="metadata" src={v.src} aria-label={v.label} data-testid="result-audio" /> : <p className="muted">{v.tooLarge}</p>}
          <Caption text={v.caption} download={v.download} />
        </>
      );
    case 'resource-text':
      return (
        <details className="part-resource">
          <summary>
            {s.resource} <code className="break">{v.uri}</code>
            {v.mimeType && <span className="muted"> ({v.mimeType})</span>}
          </summary>
          <pre>{v.text}</pre>
        </details>
      );
    case 'resource-blob':
      return (
        <p className="part-resource">
          {s.resource} <code className="break">{v.uri}</code> <Caption text={v.caption} download={v.download} inline />
        </p>
      );
    case 'link':
      return (
        <p className="part-link">
          {s.link} <code className="break">{v.uri}</code>
          {v.name && <strong> {v.name}</strong>}
          {v.caption && <span className="muted"> ({v.caption})</span>}
          {v.description && <span className="part-link-description"> — {v.description}</span>}
        </p>
      );
    default:
      return (
        <>
          <p className="muted">{s.other}</p>
          <pre>{v.json}</pre>
        </>
      );
  }
}

/** Opens a link of the result in place: read from its server (`mcpServers.readResource`) and shown as the result's own parts are. */
function LinkedResource({ bundleId, uri, toolName }: { bundleId: string; uri: string; toolName: string }) {
  // Only a server's result has links its server can be asked for (a card imported from elsewhere may name no server here).
  const servers = useOp('mcpServers.list', {}, { staleTime: 30_000 });
  const isServer = servers.data?.some((sv) => sv.bundleId === bundleId) ?? false;
  return isServer ? <OpenLink bundleId={bundleId} uri={uri} toolName={toolName} /> : null;
}

function OpenLink({ bundleId, uri, toolName }: { bundleId: string; uri: string; toolName: string }) {
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const read = useOp('mcpServers.readResource', { bundleId, uri }, { enabled: open, staleTime: 60_000, retry: false });
  const views = useMemo(() => (read.data ? partViews(read.data.contents.map(contentPart), toolName) : []), [read.data, toolName]);
  return (
    <div className="part-linked">
      <button type="button" className="link-button" aria-expanded={open} aria-controls={bodyId} aria-label={open ? s.closeLabel(uri) : s.openLabel(uri)} data-testid="result-link-open" onClick={() => setOpen((o) => !o)}>
        {open ? s.close : s.open}
      </button>
      <div id={bodyId} data-testid="result-link-body">
        {open && read.isPending && <p className="muted">{s.opening}</p>}
        {open && read.error && (
          <FieldError role="alert">
            {s.openFailed(read.error.message)}
          </FieldError>
        )}
        {open && read.data && views.length === 0 && <p className="muted">{s.emptyResource}</p>}
        {open && views.length > 0 && (
          <ul className="result-part-list">
            {views.map((v, i) => (
              <li key={i} className={`result-part part-${v.kind}`} data-kind={v.kind}>
                <Part view={v} />
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

/** An item read from a server as a part: an image or a sound as one, text or other bytes as a resource. */
function contentPart(c: McpResourceContent): ResultPart {
  if (c.dataUrl && c.mimeType && /^(image|audio)\//.test(c.mimeType)) return { type: c.mimeType.startsWith('image/') ? 'image' : 'audio', mimeType: c.mimeType, bytes: c.bytes ?? 0, dataUrl: c.dataUrl };
  return { type: 'resource', uri: c.uri, ...(c.mimeType ? { mimeType: c.mimeType } : {}), ...(c.text !== undefined ? { text: c.text } : {}), ...(c.dataUrl ? { dataUrl: c.dataUrl, bytes: c.bytes ?? 0 } : {}) };
}

function ZoomableImage({ src, alt }: { src: string; alt: string }) {
  const [full, setFull] = useState(false);
  return (
    <button type="button" className="part-image-button" aria-pressed={full} title={full ? s.fitSize : s.fullSize} onClick={() => setFull((f) => !f)}>
      <img className={full ? 'part-image full' : 'part-image'} src={src} alt={alt} data-testid="result-image" />
    </button>
  );
}

function Caption({ text, download, inline }: { text: string; download: Download; inline?: boolean }) {
  const [failed, setFailed] = useState(false);
  const Tag = inline ? 'span' : 'p';
  return (
    <Tag className="part-caption">
      <span className="muted">{text}</span>{' '}
      <button type="button" className="link-button" aria-label={s.downloadLabel(download.fileName)} onClick={() => setFailed(!save(download))}>
        {s.download}
      </button>
      {failed && (
        <FieldError as="span" role="alert">
          {' '}
          {s.downloadFailed}
        </FieldError>
      )}
    </Tag>
  );
}

/** Saves the part as a file: its bytes decoded only now, handed over as a blob: URL. */
function save(d: Download): boolean {
  const bytes = dataUrlToBytes(d.dataUrl);
  if (!bytes) return false;
  saveFile(new Blob([bytes], { type: dataUrlType(d.dataUrl) }), d.fileName);
  return true;
}
