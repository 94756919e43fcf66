/**
 * Attachments as the chat shows them: the composer's tray of files about to be sent (each with
 * a Remove button) and a sent message's files (images as thumbnails, text files as chips).
 */
import type { Attachment } from '../../../shared/model/conversation';
import { attachmentStrings as s } from '../../i18n/chat-strings';
import type { PendingAttachment } from './attachments';
import './attachments.css';

export function AttachmentTray({ items, onRemove }: { items: readonly PendingAttachment[]; onRemove(index: number): void }) {
  if (items.length === 0) return null;
  return (
    <ul className="attachment-list" aria-label={s.trayLabel} data-testid="composer-attachments">
      {items.map((a, i) => (
        <li key={`${i}-${a.name}`} className={a.image ? 'attachment image' : 'attachment file'} data-testid="composer-attachment">
          {a.image ? <img src={`data:${a.mimeType};base64,${a.dataBase64}`} alt={s.imageAlt(a.name)} /> : <span className="attachment-icon" aria-hidden="true">
              {extensionOf(a.name)}
            </span>}
          <span className="attachment-name" title={a.name}>
            {a.name}
          </span>
          <span className="attachment-size">{s.size(a.bytes)}</span>
          <button type="button" className="attachment-remove" aria-label={s.remove(a.name)} title={s.remove(a.name)} onClick={() => onRemove(i)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

export function MessageAttachments({ items }: { items: readonly Attachment[] | undefined }) {
  if (!items?.length) return null;
  return (
    <ul className="attachment-list" aria-label={s.shownLabel} data-testid="message-attachments">
      {items.map((a, i) => (
        <li key={`${i}-${a.name}`} className={a.dataBase64 ? 'attachment image' : 'attachment file'} data-testid="message-attachment">
          {a.dataBase64 ? (
            <a href={`data:${a.mimeType};base64,${a.dataBase64}`} download={a.name} title={a.name}>
              <img src={`data:${a.mimeType};base64,${a.dataBase64}`} alt={s.imageAlt(a.name)} />
            </a>
          ) : (
            <span className="attachment-icon" aria-hidden="true">
              {extensionOf(a.name)}
            </span>
          )}
          <span className="attachment-name" title={a.name}>
            {a.name}
          </span>
          <span className="attachment-size">{s.size(a.bytes)}</span>
        </li>
      ))}
    </ul>
  );
}

/** The badge of a text file: its extension (TXT when it has none). */
function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot > 0 ? name.slice(dot + 1, dot + 5) : 'txt').toUpperCase();
}
