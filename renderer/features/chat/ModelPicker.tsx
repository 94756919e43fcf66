/**
 * The model the open conversation talks to: the providers' listed models, or none (the
 * `+` palette and `@model none` still work). With no provider, says how to add one.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { ErrorInfo } from '../../../shared/errors';
import type { Conversation } from '../../../shared/model/conversation';
import { useApi, useOp } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { chatStrings as s } from '../../i18n/chat-strings';
import { useUi } from '../../stores/ui';
import { countModels, modelGroups, modelValue, parseModelValue } from './model-options';
import { useEnsureConversation } from './use-conversation';

const NONE_ID = 'chat-model-none';

function useNoModels(): boolean {
  const providers = useOp('providers.list', {});
  return providers.data !== undefined && countModels(providers.data) === 0;
}

/** Below the controls when no provider lists a model: how to connect one. */
export function NoModelNotice() {
  const none = useNoModels();
  const go = useUi((st) => st.go);
  if (!none) return null;
  return (
    <p className="help model-none" id={NONE_ID} data-testid="model-none">
      {s.model.noProviders}.{' '}
      <button type="button" className="link-button" onClick={() => go('settings')}>
        {s.model.openSettings}
      </button>
    </p>
  );
}

export function ModelPicker({ conversation }: { conversation: Conversation | undefined }) {
  const { client } = useApi();
  const qc = useQueryClient();
  const ensureConversation = useEnsureConversation();
  const providers = useOp('providers.list', {});
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorInfo | null>(null);
  const current = conversation?.model ?? null;
  const groups = modelGroups(providers.data ?? [], current);
  const none = useNoModels();

  const choose = async (value: string) => {
    setBusy(true);
    setError(null);
    try {
      const conversationId = await ensureConversation();
      const r = await client.call('conversations.setModel', { id: conversationId, model: parseModelValue(value) });
      if (!r.ok) setError(r.error);
      // The 'conversations.changed' event reads both again already: never a second read.
      void qc.invalidateQueries({ queryKey: ['conversations.get', { id: conversationId }] }, { cancelRefetch: false });
      void qc.invalidateQueries({ queryKey: ['conversations.list'] }, { cancelRefetch: false });
    } catch (e) {
      setError({ code: 'UNAVAILABLE', message: (e as Error).message });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="model-picker">
      <label htmlFor={id}>{s.model.label}</label>
      <select
        id={id}
        data-testid="model-picker"
        value={modelValue(current)}
        disabled={busy || providers.isPending}
        aria-describedby={none ? NONE_ID : undefined}
        onChange={(e) => void choose(e.target.value)}
      >
        <option value="">{s.model.none}</option>
        {groups.map((g) => (
          <optgroup key={g.providerId} label={g.providerName}>
            {g.options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.missing ? s.model.missing(o.ref.model) : o.ref.model}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
      {error && (
        <FieldError role="alert">
          {s.model.failed} <code className="error-code">{error.code}</code> {error.message}
        </FieldError>
      )}
      {providers.error && providers.error.info.code !== 'NOT_IMPLEMENTED' && (
        <FieldError role="alert">
          {providers.error.message}
        </FieldError>
      )}
    </div>
  );
}
