/**
 * A memory call waiting for the user's consent (a Partner or Human block): what it would
 * do, to which block, the change as a unified diff, and the three answers. The question is
 * a row of the call's card on the timeline, so it is still here after a reload; the answer
 * goes to memory.consent.respond and comes back as the card's next row.
 */
import { useId } from 'react';
import type { ConsentChoice, ConsentInfo } from '../../../shared/model/memory';
import { useApi } from '../../api/hooks';
import { memoryStrings as s } from '../../i18n/memory-strings';
import { DiffView } from '../../components/DiffView';
import { diffLines } from '../../components/diff-lines';
import { FieldError } from '../../components/Field';
import { usePendingAnswer } from './use-pending-answer';

const ANSWERS: { answer: ConsentChoice; label: string; testId: string; className?: string }[] = [
  { answer: 'allow-once', label: s.consent.allowOnce, testId: 'consent-allow-once', className: 'primary' },
  { answer: 'allow-conversation', label: s.consent.allowConversation, testId: 'consent-allow-conversation' },
  { answer: 'deny', label: s.consent.deny, testId: 'consent-deny', className: 'danger-button' },
];

/** The operation as the tools name it: `block_edit replace`. */
export const opText = (operation: string) => operation.replace('.', ' ');

export function ConsentForm({ consent }: { consent: ConsentInfo }) {
  const { client } = useApi();
  const ids = useId();
  const { busy, problem, answer: send } = usePendingAnswer<ConsentChoice>();
  const op = opText(consent.operation);
  const answer = (choice: ConsentChoice) => send(choice, () => client.call('memory.consent.respond', { id: consent.id, answer: choice }));

  return (
    <div className="approval consent" role="group" aria-labelledby={`${ids}-title`} aria-describedby={`${ids}-help`} data-testid="consent-card" data-consent-id={consent.id}>
      <p className="approval-title" id={`${ids}-title`}>
        <strong>{s.consent.title}</strong>
      </p>
      <p className="consent-what" data-testid="consent-what">
        <code>{s.consent.what(op, consent.label, consent.permission)}</code> <span className="muted small">{s.consent.owner(consent.owner)}</span>
      </p>
      <p className="help" id={`${ids}-help`}>
        {s.consent.help}
      </p>
      <ConsentChange consent={consent} />
      <div className="form-actions approval-actions">
        {ANSWERS.map((a) => (
          <button key={a.answer} type="button" className={a.className} data-testid={a.testId} disabled={busy !== null} onClick={() => void answer(a.answer)}>
            {busy === a.answer ? s.consent.sending : a.label}
          </button>
        ))}
      </div>
      <p className="help">{s.consent.allowConversationHelp(op, consent.label)}</p>
      {problem && (
        <FieldError role="alert" data-testid="consent-problem">
          {problem === 'not-accepted' ? (
            s.consent.notAccepted
          ) : (
            <>
              {s.consent.failed} <code className="error-code">{problem.code}</code> {problem.message}
            </>
          )}
        </FieldError>
      )}
    </div>
  );
}

/** The change an edit asks for (nothing for pin, unpin, archive: the summary says it). */
export function ConsentChange({ consent }: { consent: ConsentInfo }) {
  if (consent.diff === undefined) return <p className="consent-summary">{consent.summary}</p>;
  const lines = diffLines(consent.diff);
  if (!lines.some((l) => l.kind === 'add' || l.kind === 'remove')) return <p className="muted">{s.consent.noChange}</p>;
  return (
    <div className="consent-change">
      <p className="small muted">{s.consent.diff}</p>
      <DiffView lines={lines} label={s.consent.diffLabel(consent.label)} testId="consent-diff" />
    </div>
  );
}

/** An answered question on the card: the answer, with the change folded. */
export function ConsentAnswered({ consent }: { consent: ConsentInfo }) {
  const answer = consent.answer;
  return (
    <details className="consent-answered" data-testid="consent-answered" data-answer={answer ?? 'none'}>
      <summary>
        {answer ? s.consent.answer[answer] : s.consent.showChange} — <code>{s.consent.what(opText(consent.operation), consent.label, consent.permission)}</code>
      </summary>
      <ConsentChange consent={consent} />
    </details>
  );
}
