/**
 * What directives produced (a message's, a workflow step's, a context section's): each
 * directive as written, then its manifest, its inlined text (folded) or its error.
 */
import type { DirectiveOutcome } from '../../../shared/model/conversation';
import { FieldError } from '../../components/Field';
import { chatStrings as s } from '../../i18n/chat-strings';
import { ManifestView } from './ManifestLink';

export function OutcomeList({ outcomes }: { outcomes: readonly DirectiveOutcome[] }) {
  return (
    <ul className="outcomes" data-testid="directive-outcomes">
      {outcomes.map((o, i) => (
        <li key={i} className="outcome">
          <code className="outcome-directive">{o.directive}</code>
          {o.manifest && <ManifestView manifest={o.manifest} />}
          {o.inlineText !== undefined && (
            <details className="outcome-inline">
              <summary>{s.messages.inlineText}</summary>
              <pre>{o.inlineText}</pre>
              {o.inlineTruncated && <p className="help">{s.messages.inlineTruncated}</p>}
            </details>
          )}
          {o.error && (
            <FieldError role="alert">
              <code className="error-code">{o.error.code}</code> {o.error.message}
            </FieldError>
          )}
        </li>
      ))}
    </ul>
  );
}

/** A message's outcomes, folded under one summary; failures are counted on it in red, so none hides folded. */
export function DirectiveOutcomes({ outcomes }: { outcomes: readonly DirectiveOutcome[] }) {
  if (outcomes.length === 0) return null;
  const failed = outcomes.filter((o) => o.error).length;
  return (
    <details className={failed > 0 ? 'message-outcomes has-errors' : 'message-outcomes'} data-failed={failed}>
      <summary>
        {s.messages.outcomes(outcomes.length)}
        {failed > 0 && (
          <span className="badge danger outcomes-failed" data-testid="outcomes-failed">
            <span aria-hidden="true">✕ </span>
            {s.actions.failedOutcomes(failed)}
          </span>
        )}
      </summary>
      <OutcomeList outcomes={outcomes} />
    </details>
  );
}
