/**
 * The open conversation's own system prompt and model parameters (temperature, max tokens,
 * reasoning), saved with 'conversations.setOptions'. Says which of them the chosen model does not
 * take: those are left out of its requests, never a refused turn (shared/model/model-params.ts).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { Conversation } from '../../../shared/model/conversation';
import { MAX_TOKENS_LIMIT, ModelParamsSchema, ReasoningSchema, SYSTEM_PROMPT_MAX, TEMPERATURE_MAX, paramSupport, type ModelParams, type Reasoning } from '../../../shared/model/model-params';
import { patchConversation } from '../../api/conversation-cache';
import { useOp, useOpMutation } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { QueryError } from '../../components/QueryError';
import { chatStrings, conversationOptionsStrings as s } from '../../i18n/chat-strings';
import { useUi } from '../../stores/ui';
import { useConversationDetail } from './use-conversation';

export function ConversationOptions() {
  const conversationId = useUi((st) => st.conversationId);
  if (!conversationId) return <p className="muted">{s.noConversation}</p>;
  // A fresh draft for each conversation.
  return <OptionsEditor key={conversationId} conversationId={conversationId} />;
}

interface Draft {
  systemPrompt: string;
  temperature: string;
  maxTokens: string;
  reasoning: '' | Reasoning;
}

type Field = 'systemPrompt' | 'temperature' | 'maxTokens' | 'reasoning';

function draftOf(c: Conversation): Draft {
  return {
    systemPrompt: c.systemPrompt ?? '',
    temperature: c.params?.temperature !== undefined ? String(c.params.temperature) : '',
    maxTokens: c.params?.maxTokens !== undefined ? String(c.params.maxTokens) : '',
    reasoning: c.params?.reasoning ?? '',
  };
}

/** The draft as the operation takes it, or the errors by field (checked as the core checks them). */
export function parseDraft(d: Draft): { ok: true; systemPrompt: string; params: ModelParams } | { ok: false; errors: Partial<Record<Field, string>> } {
  const errors: Partial<Record<Field, string>> = {};
  const num = (text: string, field: Field, label: string): number | undefined => {
    if (text.trim() === '') return undefined;
    const n = Number(text);
    if (!Number.isFinite(n)) errors[field] = s.notANumber(label);
    return n;
  };
  const temperature = num(d.temperature, 'temperature', s.temperature);
  const maxTokens = num(d.maxTokens, 'maxTokens', s.maxTokens);
  const params: ModelParams = {
    ...(temperature !== undefined ? { temperature } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(d.reasoning ? { reasoning: d.reasoning } : {}),
  };
  const checked = ModelParamsSchema.safeParse(params);
  if (!checked.success) {
    for (const issue of checked.error.issues) {
      const field = issue.path[0] as Field;
      errors[field] ??= issue.message;
    }
  }
  if (d.systemPrompt.length > SYSTEM_PROMPT_MAX) errors.systemPrompt = `the system prompt is longer than ${SYSTEM_PROMPT_MAX} characters: shorten it`;
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, systemPrompt: d.systemPrompt, params };
}

function OptionsEditor({ conversationId }: { conversationId: string }) {
  const detail = useConversationDetail(conversationId);
  const providers = useOp('providers.list', {});
  const qc = useQueryClient();
  const ids = useId();
  const save = useOpMutation('conversations.setOptions');
  const [draft, setDraft] = useState<Draft | null>(null);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const conversation = detail.data?.conversation;

  if (detail.error) return <QueryError error={detail.error} onRetry={() => void detail.refetch()} />;
  if (!conversation) return <p className="muted">{chatStrings.messages.loading}</p>;

  const shown = draft ?? draftOf(conversation);
  const dirty = draft !== null;
  const edit = (patch: Partial<Draft>) => {
    setDraft({ ...shown, ...patch });
    setErrors({});
    save.reset();
  };

  const model = conversation.model;
  const kind = model ? providers.data?.find((p) => p.id === model.providerId)?.kind : undefined;
  const support = model && kind ? paramSupport(kind, model.model) : undefined;
  const notes = {
    temperature: support && !support.temperature ? s.notTaken.temperature(model!.model) : undefined,
    reasoning:
      support && !support.reasoning
        ? s.notTaken.reasoning(model!.model)
        : support && shown.reasoning === 'off' && !support.reasoningOff
          ? s.notTaken.reasoningOff(model!.model)
          : undefined,
  };

  const onSave = () => {
    const parsed = parseDraft(shown);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    save.mutate(
      { id: conversationId, systemPrompt: parsed.systemPrompt, params: parsed.params },
      {
        onSuccess: (next) => {
          patchConversation(qc, conversationId, (old) => ({ ...old, conversation: next }));
          setDraft(null);
        },
      },
    );
  };

  const describedBy = (field: Field, ...more: (string | undefined)[]) => [errors[field] ? `${ids}-${field}-error` : undefined, ...more].filter(Boolean).join(' ') || undefined;
  const fieldError = (field: Field) =>
    errors[field] && (
      <FieldError id={`${ids}-${field}-error`} data-testid={`options-${field}-error`}>
        {errors[field]}
      </FieldError>
    );

  return (
    <form
      className="context-panel conversation-options"
      data-testid="conversation-options"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (dirty) onSave();
      }}
    >
      <p className="help">{s.help}</p>
      {!model && <p className="help">{s.noModel}</p>}

      <label htmlFor={`${ids}-prompt`}>{s.systemPrompt}</label>
      <textarea
        id={`${ids}-prompt`}
        rows={4}
        className="context-text"
        maxLength={SYSTEM_PROMPT_MAX}
        value={shown.systemPrompt}
        aria-invalid={!!errors.systemPrompt}
        aria-describedby={describedBy('systemPrompt', `${ids}-prompt-help`)}
        data-testid="options-system-prompt"
        onChange={(e) => edit({ systemPrompt: e.target.value })}
      />
      <span className="help" id={`${ids}-prompt-help`}>
        {s.systemPromptHelp}
      </span>
      {fieldError('systemPrompt')}

      <label htmlFor={`${ids}-temperature`}>{s.temperature}</label>
      <input
        id={`${ids}-temperature`}
        type="number"
        inputMode="decimal"
        min={0}
        max={TEMPERATURE_MAX}
        step={0.1}
        value={shown.temperature}
        aria-invalid={!!errors.temperature}
        aria-describedby={describedBy('temperature', `${ids}-temperature-help`, notes.temperature ? `${ids}-temperature-note` : undefined)}
        data-testid="options-temperature"
        onChange={(e) => edit({ temperature: e.target.value })}
      />
      <span className="help" id={`${ids}-temperature-help`}>
        {s.temperatureHelp(TEMPERATURE_MAX)}
      </span>
      {notes.temperature && (
        <span className="help" id={`${ids}-temperature-note`} data-testid="options-temperature-note">
          {notes.temperature}
        </span>
      )}
      {fieldError('temperature')}

      <label htmlFor={`${ids}-max-tokens`}>{s.maxTokens}</label>
      <input
        id={`${ids}-max-tokens`}
        type="number"
        inputMode="numeric"
        min={1}
        max={MAX_TOKENS_LIMIT}
        step={1}
        value={shown.maxTokens}
        aria-invalid={!!errors.maxTokens}
        aria-describedby={describedBy('maxTokens', `${ids}-max-tokens-help`)}
        data-testid="options-max-tokens"
        onChange={(e) => edit({ maxTokens: e.target.value })}
      />
      <span className="help" id={`${ids}-max-tokens-help`}>
        {s.maxTokensHelp(MAX_TOKENS_LIMIT.toLocaleString('en-US'))}
      </span>
      {fieldError('maxTokens')}

      <label htmlFor={`${ids}-reasoning`}>{s.reasoning}</label>
      <select
        id={`${ids}-reasoning`}
        value={shown.reasoning}
        aria-describedby={notes.reasoning ? `${ids}-reasoning-note` : undefined}
        data-testid="options-reasoning"
        onChange={(e) => edit({ reasoning: e.target.value as Draft['reasoning'] })}
      >
        <option value="">{s.reasoningDefault}</option>
        {ReasoningSchema.options.map((r) => (
          <option key={r} value={r}>
            {s.reasoningLevels[r]}
          </option>
        ))}
      </select>
      {notes.reasoning && (
        <span className="help" id={`${ids}-reasoning-note`} data-testid="options-reasoning-note">
          {notes.reasoning}
        </span>
      )}
      {fieldError('reasoning')}

      <div className="form-actions context-actions">
        <button type="submit" className="primary" data-testid="options-save" disabled={!dirty || save.isPending}>
          {save.isPending ? s.saving : s.save}
        </button>
        {dirty && (
          <button
            type="button"
            data-testid="options-discard"
            onClick={() => {
              setDraft(null);
              setErrors({});
            }}
          >
            {s.discard}
          </button>
        )}
        {save.isSuccess && !dirty && (
          <span className="status-ok" role="status" data-testid="options-saved">
            {s.saved}
          </span>
        )}
      </div>
      {Object.keys(errors).length > 0 && (
        <FieldError role="alert">
          {s.fixFields}
        </FieldError>
      )}
      {save.error && (
        <FieldError role="alert" data-testid="options-error">
          {s.failed} <code className="error-code">{save.error.info.code}</code> {save.error.message}
        </FieldError>
      )}
    </form>
  );
}
