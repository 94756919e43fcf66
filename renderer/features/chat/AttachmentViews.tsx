/**
 * Attachments as the chat shows them: the composer's tray of files about to be sent (each with
 * a Remove button) and a sent message's files (images as thumbnails, text files as chips). A
 * sent image's bytes are read when its thumbnail is drawn (`conversations.attachment`), once:
 * a message's files never change.
 */
import { ATTACHMENT_IMAGE_TYPES, type Attachment } from '../../../shared/model/conversation';
import { useOp } from '../../api/hooks';
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

export function MessageAttachments({ conversationId, messageId, items }: { conversationId: string; messageId: string; items: readonly Attachment[] | undefined }) {
  if (!items?.length) return null;
  return (
    <ul className="attachment-list" aria-label={s.shownLabel} data-testid="message-attachments">
      {items.map((a, i) => {
        const image = ATTACHMENT_IMAGE_TYPES.includes(a.mimeType);
        return (
          <li key={`${i}-${a.name}`} className={image ? 'attachment image' : 'attachment file'} data-testid="message-attachment">
            {image ? (
              <Thumbnail conversationId={conversationId} messageId={messageId} index={i} attachment={a} />
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
        );
      })}
    </ul>
  );
}

/** A sent image, read when drawn; a link that saves it. Until its bytes come (or when they cannot), its type's badge. */
function Thumbnail({ conversationId, messageId, index, attachment }: { conversationId: string; messageId: string; index: number; attachment: Attachment }) {
  const file = useOp('conversations.attachment', { id: conversationId, messageId, index }, { staleTime: Infinity, gcTime: 5 * 60_000 });
  if (!file.data) {
    return (
      <span className="attachment-icon" aria-hidden={file.isError ? undefined : 'true'} title={file.isError ? file.error.message : undefined}>
        {extensionOf(attachment.name)}
      </span>
    );
  }
  const src = `data:${file.data.mimeType};base64,${file.data.dataBase64}`;
  return (
    <a href={src} download={attachment.name} title={attachment.name}>
      <img src={src} alt={s.imageAlt(attachment.name)} />
    </a>
  );
}

/** The badge of a text file: its extension (TXT when it has none). */
function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot > 0 ? name.slice(dot + 1, dot + 5) : 'txt').toUpperCase();
}
