/**
 * A model's call waiting for the user: its arguments as editable JSON (checked as typed:
 * JSON first, then the tool's argSchema through 'approvals.check', each issue named by its
 * field) and the four answers. Edited arguments go with an allowing answer; Allow is off,
 * with the reason shown, while they do not match the schema. Deny opens a box for why (the
 * model is told; empty denies without a reason): Enter sends, Shift+Enter starts a new line,
 * Escape goes back to the answers.
 */
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { ApprovalDecision } from '../../../shared/model/provider';
import { useApi } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { chatStrings as s } from '../../i18n/chat-strings';
import { fieldIssue, pointerLabel, type ArgIssue } from '../tools/tester/schema-form';
import { argsText, editedArgs, parseArgs } from './approval-args';
import { usePendingAnswer } from './use-pending-answer';

/** How long typing settles before the arguments are checked against the schema. */
const CHECK_SETTLE_MS = 150;

const ANSWERS: { decision: ApprovalDecision; label: string; testId: string; primary?: boolean }[] = [
  { decision: 'allow-once', label: s.approval.allowOnce, testId: 'approval-allow-once', primary: true },
  { decision: 'allow-conversation', label: s.approval.allowConversation, testId: 'approval-allow-conversation' },
  { decision: 'allow-always', label: s.approval.allowAlways, testId: 'approval-allow-always' },
  { decision: 'deny', label: s.approval.deny, testId: 'approval-deny' },
];

export function ApprovalForm({ conversationId, invocationId, args }: { conversationId: string; invocationId: string; args: unknown }) {
  const { client } = useApi();
  const ids = useId();
  const [text, setText] = useState(() => argsText(args));
  const { busy, problem, answer: send } = usePendingAnswer<ApprovalDecision>();
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');
  const denyRef = useRef<HTMLButtonElement>(null);
  const reasonBoxRef = useRef<HTMLDivElement>(null);
  // The box opens at the card's foot: brought into the messages' view, its buttons too.
  useEffect(() => {
    if (denying) reasonBoxRef.current?.scrollIntoView({ block: 'nearest' });
  }, [denying]);
  const edit = editedArgs(args, text);
  // The schema's verdict on the text as it is now (edited or the model's own).
  const [checked, setChecked] = useState<{ text: string; issues: readonly ArgIssue[] } | null>(null);
  useEffect(() => {
    const parsed = parseArgs(text);
    if (!parsed.ok) return;
    let live = true;
    const t = setTimeout(() => {
      client
        .call('approvals.check', { conversationId, invocationId, args: parsed.value })
        .then((r) => {
          if (live && r.ok) setChecked({ text, issues: r.value.issues });
        })
        .catch(() => undefined);
    }, CHECK_SETTLE_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [client, conversationId, invocationId, text]);
  const issues = !edit.error && checked?.text === text ? checked.issues : [];
  const checking = !edit.error && !!edit.args && checked?.text !== text;
  /** Why Allow is off, besides a request in flight. */
  const allowBlocked = !!edit.error || (!!edit.args && (issues.length > 0 || checking));

  const answer = async (decision: ApprovalDecision) => {
    if (decision !== 'deny' && allowBlocked) return;
    const why = decision === 'deny' ? reason.trim() : '';
    await send(decision, () =>
      client.call('approvals.respond', {
        conversationId,
        invocationId,
        decision,
        ...(decision !== 'deny' && edit.args ? { args: edit.args } : {}),
        ...(why ? { reason: why } : {}),
      }),
    );
  };
  const closeDeny = () => {
    setDenying(false);
    requestAnimationFrame(() => denyRef.current?.focus());
  };
  const onReasonKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.nativeEvent.isComposing) return;
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void answer('deny');
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      closeDeny();
    }
  };

  const argsId = `${ids}-args`;
  const errorId = `${ids}-error`;
  return (
    <div className="approval" role="group" aria-labelledby={`${ids}-title`} data-testid="approval-card">
      <p className="approval-title" id={`${ids}-title`}>
        <strong>{s.approval.title}</strong> <span className="muted">{s.approval.help}</span>
      </p>
      <label htmlFor={argsId}>{s.approval.args}</label>
      <textarea
        id={argsId}
        className="approval-args"
        data-testid="approval-args"
        rows={Math.min(14, Math.max(3, text.split('\n').length))}
        spellCheck={false}
        value={text}
        aria-invalid={!!edit.error || issues.length > 0}
        aria-describedby={edit.error ? errorId : issues.length > 0 ? `${ids}-issues` : undefined}
        onChange={(e) => setText(e.target.value)}
      />
      {edit.error ? (
        <FieldError id={errorId} data-testid="approval-args-error">
          {edit.error}
        </FieldError>
      ) : issues.length > 0 ? (
        <FieldError as="div" id={`${ids}-issues`} data-testid="approval-args-issues">
          <p>{edit.args ? s.approval.schemaIssues : s.approval.modelIssues}</p>
          <ul>
            {issues.map((i, n) => {
              const f = fieldIssue(i);
              return (
                <li key={n}>
                  <code>{pointerLabel(f.pointer)}</code> {f.message}
                </li>
              );
            })}
          </ul>
        </FieldError>
      ) : checking ? (
        <p className="help" role="status">
          {s.approval.checking}
        </p>
      ) : (
        edit.args && <p className="help">{s.approval.edited}</p>
      )}
      {denying ? (
        <div className="deny-reason" ref={reasonBoxRef} data-testid="approval-deny-box">
          <label htmlFor={`${ids}-reason`}>{s.approval.denyReason}</label>
          <textarea
            id={`${ids}-reason`}
            data-testid="approval-deny-reason-input"
            rows={2}
            maxLength={2000}
            value={reason}
            placeholder={s.approval.denyReasonPlaceholder}
            aria-describedby={`${ids}-reason-help`}
            autoFocus
            onChange={(e) => setReason(e.target.value)}
            onKeyDown={onReasonKey}
          />
          <p className="help" id={`${ids}-reason-help`}>
            {s.approval.denyReasonHelp}
          </p>
          <div className="form-actions approval-actions">
            <button type="button" className="danger-button" data-testid="approval-deny-reason-send" disabled={busy !== null} onClick={() => void answer('deny')}>
              {busy === 'deny' ? s.approval.sending : s.approval.denySend}
            </button>
            <button type="button" data-testid="approval-deny-reason-cancel" disabled={busy !== null} onClick={closeDeny}>
              {s.approval.denyCancel}
            </button>
          </div>
        </div>
      ) : (
        <div className="form-actions approval-actions">
          {ANSWERS.map((a) => (
            <button
              key={a.decision}
              ref={a.decision === 'deny' ? denyRef : undefined}
              type="button"
              className={a.primary ? 'primary' : a.decision === 'deny' ? 'danger-button' : undefined}
              data-testid={a.testId}
              disabled={busy !== null || (a.decision !== 'deny' && allowBlocked)}
              aria-describedby={a.decision !== 'deny' && allowBlocked ? (edit.error ? errorId : `${ids}-issues`) : undefined}
              aria-expanded={a.decision === 'deny' ? false : undefined}
              onClick={() => (a.decision === 'deny' ? setDenying(true) : void answer(a.decision))}
            >
              {busy === a.decision ? s.approval.sending : a.label}
            </button>
          ))}
        </div>
      )}
      {problem && (
        <FieldError role="alert" data-testid="approval-problem">
          {problem === 'not-accepted' ? (
            s.approval.notAccepted
          ) : problem.code === 'VALIDATION_FAILED' ? (
            <>
              {s.approval.invalidArgs} {problem.message}
            </>
          ) : (
            <>
              {s.approval.failed} <code className="error-code">{problem.code}</code> {problem.message}
            </>
          )}
        </FieldError>
      )}
    </div>
  );
}
