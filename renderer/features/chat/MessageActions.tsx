/**
 * What can be done with a message once it is in the timeline: copy its text (any message),
 * ask the model again (its answer: 'chat.regenerate' cuts what followed the question and
 * reruns it), and edit and resend (the user's own: 'chat.edit' replaces it and everything
 * after it). Refusals (a turn running, no model) show on the message.
 */
import { useId, useState, type KeyboardEvent } from 'react';
import type { Message } from '../../../shared/model/conversation';
import { useOpMutation } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { chatStrings as s } from '../../i18n/chat-strings';
import { copyText } from './Markdown';

export function CopyButton({ text }: { text: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <button
      type="button"
      className="message-action"
      data-testid="message-copy"
      title={s.actions.copyLabel}
      aria-label={s.actions.copyLabel}
      onClick={async () => {
        setState((await copyText(text)) ? 'copied' : 'failed');
        window.setTimeout(() => setState('idle'), 1500);
      }}
    >
      {state === 'copied' ? s.markdown.copied : state === 'failed' ? s.markdown.copyFailed : s.actions.copy}
    </button>
  );
}

export function RegenerateButton({ message, disabled }: { message: Message; disabled: boolean }) {
  const regenerate = useOpMutation('chat.regenerate');
  return (
    <>
      <button
        type="button"
        className="message-action"
        data-testid="message-regenerate"
        title={s.actions.regenerateLabel}
        disabled={disabled || regenerate.isPending}
        onClick={() => regenerate.mutate({ conversationId: message.conversationId, messageId: message.id })}
      >
        {s.actions.regenerate}
      </button>
      {regenerate.error && (
        <FieldError as="span" className="message-action-error" role="alert" data-testid="message-action-error">
          {regenerate.error.message}
        </FieldError>
      )}
    </>
  );
}

/** The user's message as an editor: Enter (or Save and send) sends the new text in its place; Escape cancels. */
export function EditMessage({ message, onDone }: { message: Message; onDone: () => void }) {
  const [text, setText] = useState(message.text);
  const edit = useOpMutation('chat.edit');
  const helpId = useId();
  const submit = () => {
    if (!text.trim() || edit.isPending) return;
    edit.mutate({ conversationId: message.conversationId, messageId: message.id, text }, { onSuccess: onDone });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onDone();
    } else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };
  return (
    <div className="message-edit">
      <textarea
        className="message-edit-input"
        data-testid="message-edit-input"
        aria-label={s.actions.editInput}
        aria-describedby={helpId}
        value={text}
        rows={Math.min(12, Math.max(2, text.split('\n').length))}
        autoFocus
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <p id={helpId} className="help">
        {s.actions.editHelp}
      </p>
      {edit.error && (
        <FieldError role="alert" data-testid="message-action-error">
          {edit.error.message}
        </FieldError>
      )}
      <div className="form-actions">
        <button type="button" className="primary" data-testid="message-edit-send" disabled={!text.trim() || edit.isPending} onClick={submit}>
          {edit.isPending ? s.composer.sending : s.actions.editSend}
        </button>
        <button type="button" data-testid="message-edit-cancel" onClick={onDone}>
          {s.actions.editCancel}
        </button>
      </div>
    </div>
  );
}
