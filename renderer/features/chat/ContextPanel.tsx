/**
 * The open conversation's context sections (its system context): edit their titles, text
 * and switches, save ('conversations.setContext'), and Evaluate ('conversations.evaluateContext')
 * to see what a model would be given: each enabled section's text and its directives' manifests.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import type { OpOutput } from '../../../shared/contract';
import { parseDirectives } from '../../../shared/directives/parser';
import { TITLE_MAX, type ContextSection } from '../../../shared/model/conversation';
import { queryKey, useOpMutation } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { QueryError } from '../../components/QueryError';
import { chatStrings as s } from '../../i18n/chat-strings';
import { useUi } from '../../stores/ui';
import { v7 as uuidv7 } from 'uuid';
import { OutcomeList } from './DirectiveOutcomes';
import { useConversationDetail, type ConversationDetail } from './use-conversation';

export function ContextPanel() {
  const conversationId = useUi((st) => st.conversationId);
  if (!conversationId) return <p className="muted">{s.context.noConversation}</p>;
  // A fresh draft for each conversation.
  return <ContextEditor key={conversationId} conversationId={conversationId} />;
}

const newSectionId = (): string => (typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : uuidv7());

function ContextEditor({ conversationId }: { conversationId: string }) {
  const detail = useConversationDetail(conversationId);
  const qc = useQueryClient();
  const ids = useId();
  const saved = detail.data?.contextSections;
  const [draft, setDraft] = useState<ContextSection[] | null>(null);
  const sections = draft ?? saved ?? [];
  const dirty = draft !== null;
  const save = useOpMutation('conversations.setContext');
  const evaluate = useOpMutation('conversations.evaluateContext');
  const [evaluated, setEvaluated] = useState<OpOutput<'conversations.evaluateContext'> | null>(null);
  const hasErrors = sections.some((sec) => parseDirectives(sec.text).errors.length > 0);

  const edit = (index: number, patch: Partial<ContextSection>) => {
    setDraft(sections.map((sec, i) => (i === index ? { ...sec, ...patch } : sec)));
    save.reset();
  };
  const add = () => {
    setDraft([...sections, { id: newSectionId(), title: s.context.sectionLabel(sections.length + 1), text: '', enabled: true }]);
    save.reset();
  };
  const remove = (index: number) => setDraft(sections.filter((_, i) => i !== index));

  const onSave = () => {
    if (!draft) return;
    save.mutate(
      { id: conversationId, sections: draft },
      {
        onSuccess: (next) => {
          qc.setQueryData<ConversationDetail>(queryKey('conversations.get', { id: conversationId }), (old) => (old ? { ...old, contextSections: next } : old));
          setDraft(null);
          setEvaluated(null);
        },
      },
    );
  };

  const onEvaluate = () => evaluate.mutate({ id: conversationId }, { onSuccess: setEvaluated });

  if (detail.error) return <QueryError error={detail.error} onRetry={() => void detail.refetch()} />;
  if (!detail.data) return <p className="muted">{s.messages.loading}</p>;
  return (
    <div className="context-panel" data-testid="context-panel">
      <p className="help">{s.context.help}</p>
      {sections.length === 0 && <p className="muted">{s.context.empty}</p>}
      <ol className="context-sections">
        {sections.map((sec, i) => (
          <SectionEditor key={sec.id} section={sec} onChange={(patch) => edit(i, patch)} onRemove={() => remove(i)} />
        ))}
      </ol>
      <div className="form-actions context-actions">
        <button type="button" data-testid="context-add" onClick={add}>
          {s.context.add}
        </button>
        <button type="button" className="primary" data-testid="context-save" disabled={!dirty || hasErrors || save.isPending} onClick={onSave}>
          {save.isPending ? s.context.saving : s.context.save}
        </button>
        {dirty && (
          <button type="button" data-testid="context-discard" onClick={() => setDraft(null)}>
            {s.context.discard}
          </button>
        )}
        {save.isSuccess && !dirty && (
          <span className="status-ok" role="status">
            {s.context.saved}
          </span>
        )}
      </div>
      {save.error && (
        <FieldError role="alert">
          {save.error.message}
        </FieldError>
      )}
      <div className="form-actions">
        <button type="button" data-testid="context-evaluate" disabled={dirty || evaluate.isPending} aria-describedby={dirty ? `${ids}-evaluate-help` : undefined} onClick={onEvaluate}>
          {evaluate.isPending ? s.context.evaluating : s.context.evaluate}
        </button>
        {dirty && (
          <span className="help" id={`${ids}-evaluate-help`}>
            {s.context.evaluateHelp}
          </span>
        )}
      </div>
      {evaluate.error && (
        <FieldError role="alert">
          <code className="error-code">{evaluate.error.info.code}</code> {evaluate.error.message}
        </FieldError>
      )}
      {evaluated && <Evaluation result={evaluated} />}
    </div>
  );
}

function SectionEditor({ section, onChange, onRemove }: { section: ContextSection; onChange: (patch: Partial<ContextSection>) => void; onRemove: () => void }) {
  const ids = useId();
  const errors = useMemo(() => parseDirectives(section.text).errors, [section.text]);
  const label = section.title || s.context.newTitle;
  return (
    <li className="context-section" data-testid="context-section">
      <div className="context-section-head">
        <label className="inline-check">
          <input type="checkbox" checked={section.enabled} data-testid="context-enabled" onChange={(e) => onChange({ enabled: e.target.checked })} />
          {s.context.enabled}
        </label>
        <button type="button" className="icon-button" aria-label={s.context.removeLabel(label)} title={s.context.remove} onClick={onRemove}>
          ✕
        </button>
      </div>
      <label htmlFor={`${ids}-title`}>{s.context.sectionTitle}</label>
      <input id={`${ids}-title`} type="text" maxLength={TITLE_MAX} value={section.title} data-testid="context-title" onChange={(e) => onChange({ title: e.target.value })} />
      <label htmlFor={`${ids}-text`}>{s.context.sectionText}</label>
      <textarea
        id={`${ids}-text`}
        rows={4}
        spellCheck={false}
        className="context-text"
        value={section.text}
        aria-invalid={errors.length > 0}
        aria-describedby={errors.length > 0 ? `${ids}-errors` : undefined}
        data-testid="context-text"
        onChange={(e) => onChange({ text: e.target.value })}
      />
      {errors.length > 0 && (
        <FieldError as="ul" className="context-errors" id={`${ids}-errors`}>
          {errors.map((err, i) => (
            <li key={i}>{s.composer.errorAt(err.line, err.column, err.message)}</li>
          ))}
        </FieldError>
      )}
    </li>
  );
}

function Evaluation({ result }: { result: OpOutput<'conversations.evaluateContext'> }) {
  return (
    <section className="context-evaluation" data-testid="context-evaluation" aria-label={s.context.evaluated}>
      <h3>{s.context.evaluated}</h3>
      {result.length === 0 && <p className="muted">{s.context.noEnabled}</p>}
      {result.map((r) => (
        <article key={r.sectionId} className="context-result">
          <header>
            <strong>{r.title}</strong> {r.modelNone && <span className="badge">{s.context.modelNone}</span>}
          </header>
          {r.text && <pre className="context-rendered">{r.text}</pre>}
          {r.outcomes.length > 0 && <OutcomeList outcomes={r.outcomes} />}
        </article>
      ))}
    </section>
  );
}
