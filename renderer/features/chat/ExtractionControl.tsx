/**
 * The open conversation's extraction thresholds for oversized outputs, over Settings' own:
 * a compact popover beside the tool selection. Empty fields use Settings' values (shown as
 * placeholders); "Use Settings' values" clears them all.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { ErrorInfo } from '../../../shared/errors';
import type { Conversation } from '../../../shared/model/conversation';
import type { ExtractionOverrides } from '../../../shared/model/settings';
import { useApi, useOp } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { Popover, usePopover } from '../../components/Popover';
import { outputStrings } from '../../i18n/output-strings';
import { EXTRACTION_FIELDS, fromExtractionDraft, toExtractionDraft, type ExtractionDraft, type ExtractionField } from './extraction-draft';
import { useEnsureConversation } from './use-conversation';

const s = outputStrings.conversation;
const labels: Record<ExtractionField, string> = {
  maxChunksForFullMode: outputStrings.settings.maxChunks,
  avgLineBytesForFullMode: outputStrings.settings.avgLineBytes,
  overlapPercent: outputStrings.settings.overlap,
};

export function ExtractionControl({ conversation }: { conversation: Conversation | undefined }) {
  const { client } = useApi();
  const qc = useQueryClient();
  const ensureConversation = useEnsureConversation();
  const ids = useId();
  const settings = useOp('settings.get', {});
  const panelId = `${ids}-panel`;
  const saved = conversation?.extraction;
  const [draft, setDraft] = useState<ExtractionDraft>(() => toExtractionDraft(saved));
  const [errors, setErrors] = useState<Partial<Record<ExtractionField, string>>>({});
  const [failure, setFailure] = useState<ErrorInfo | null>(null);
  const [status, setStatus] = useState<'idle' | 'saving' | 'saved'>('idle');
  // Opening shows what is saved now (a refetch of the conversation while it is open keeps what is typed).
  const { open, close, buttonProps, popoverProps } = usePopover(panelId, () => {
    setDraft(toExtractionDraft(saved));
    setErrors({});
    setFailure(null);
    setStatus('idle');
  });

  const send = async (value: ExtractionOverrides | null) => {
    setFailure(null);
    setStatus('saving');
    try {
      const id = await ensureConversation();
      const r = await client.call('conversations.setExtraction', { id, extraction: value });
      if (!r.ok) {
        setFailure(r.error);
        setStatus('idle');
        return;
      }
      setDraft(toExtractionDraft(r.value.extraction));
      setStatus('saved');
      void qc.invalidateQueries({ queryKey: ['conversations.get', { id }] }, { cancelRefetch: false });
    } catch (e) {
      setFailure({ code: 'UNAVAILABLE', message: (e as Error).message });
      setStatus('idle');
    }
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const r = fromExtractionDraft(draft);
    if (!r.ok) {
      setErrors(r.errors);
      return;
    }
    setErrors({});
    void send(r.value);
  };

  const own = saved !== undefined;
  const base = settings.data?.toolOutputs;
  return (
    <div className="tool-selection" data-testid="extraction-control">
      <button {...buttonProps} className="tool-selection-button" data-testid="extraction-button">
        {s.button}: <span className={own ? '' : 'muted'}>{own ? s.summaryOwn : s.summarySettings}</span>
      </button>
      {open && (
        <Popover {...popoverProps} as="form" className="tool-selection-panel" role="dialog" aria-label={s.label} onSubmit={onSubmit} noValidate>
          <p className="help">{s.help}</p>
          {EXTRACTION_FIELDS.map((k) => {
            const err = errors[k];
            const errId = `${ids}-${k}-error`;
            return (
              <label key={k} className="field">
                <span>{labels[k]}</span>
                <input
                  type="text"
                  inputMode="numeric"
                  data-testid={`extraction-${k}`}
                  value={draft[k]}
                  placeholder={base ? s.placeholder(base[k]) : ''}
                  aria-invalid={err ? true : undefined}
                  aria-describedby={err ? errId : undefined}
                  onChange={(e) => {
                    setDraft({ ...draft, [k]: e.target.value });
                    setStatus('idle');
                  }}
                />
                {err && (
                  <FieldError as="span" id={errId} role="alert">
                    {s.invalid(labels[k], err)}
                  </FieldError>
                )}
              </label>
            );
          })}
          {failure && (
            <FieldError role="alert">
              {s.failed} <code className="error-code">{failure.code}</code> {failure.message}
            </FieldError>
          )}
          <div className="form-actions">
            <button type="submit" className="primary" data-testid="extraction-save" disabled={status === 'saving'}>
              {s.save}
            </button>
            <button type="button" data-testid="extraction-use-settings" disabled={status === 'saving'} onClick={() => void send(null)}>
              {s.useSettings}
            </button>
            <button type="button" onClick={close}>
              {s.close}
            </button>
            {status === 'saved' && (
              <span className="muted" role="status">
                {s.saved}
              </span>
            )}
          </div>
        </Popover>
      )}
    </div>
  );
}
