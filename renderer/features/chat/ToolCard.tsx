/**
 * A tool call in the conversation: the tool (display name and slug), its arguments
 * (folded), status and duration (while it runs, its progress once it reports some), then its value, the manifest of where the value was
 * routed, or its error. A model's call waiting for approval shows the approval form. An
 * oversized result shows what the gate did with it (StoredGate); a tool_output call, its
 * extraction. A memory call waiting for consent shows the consent card (ConsentForm), and
 * once answered, the answer with the change folded.
 *
 * Where the card is (`placement`): a conversation's own card in the chat ('root') gathers, on a
 * delegation, the calls waiting for approval in its tasks at any depth (TaskApprovals); a card
 * inside a task's timeline in the chat ('in-task') points there instead of asking in place.
 * Elsewhere (Inspect) a waiting call is answered in place.
 */
import type { ToolCard as ToolCardData } from '../../../shared/model/conversation';
import { chatStrings as s } from '../../i18n/chat-strings';
import { outputStrings } from '../../i18n/output-strings';
import { ApprovalWhy } from '../../components/ApprovalWhy';
import { FixItAction } from '../../components/FixItAction';
import { InvocationProgress } from '../../components/InvocationProgress';
import { ApprovalForm } from './ApprovalForm';
import { ConsentAnswered, ConsentForm } from './ConsentForm';
import { ExtractionView } from './ExtractionView';
import { formatDuration, valueText } from './format';
import { ManifestView } from './ManifestLink';
import { StoredGate } from './StoredGate';
import { ValueView } from './ValueView';
import { QuestionAnswer, TaskApprovals, TaskTimeline } from './TaskViews';
import { useRerun } from './rerun-store';
import { canOpenInTester, replaySourceOf } from '../tools/tester/replay';
import { useReplay } from '../tools/tester/replay-store';
import { useUi } from '../../stores/ui';
import { McpAppSlot } from '../mcp-apps/McpAppSlot';
import { McpCallQuestion } from '../mcp-server/McpQuestionPrompt';
import { SaveAsEvalButton } from '../tools/evals/SaveAsEval';
import { ScriptApprovalSource } from '../tools/script/ScriptTrust';

const STATUS_CLASS: Record<ToolCardData['status'], string> = {
  running: 'badge',
  'awaiting-approval': 'badge waiting',
  'awaiting-answer': 'badge waiting',
  ok: 'badge ok',
  error: 'badge danger',
  cancelled: 'badge',
  denied: 'badge danger',
};

export function ToolCard({ card, conversationId, placement, messageId }: { card: ToolCardData; conversationId?: string; placement?: 'root' | 'in-task'; messageId?: string }) {
  const awaiting = card.status === 'awaiting-approval';
  const inChat = placement !== undefined;
  const stored = card.stored;
  const noArgs = card.args === undefined || (typeof card.args === 'object' && card.args !== null && Object.keys(card.args).length === 0);
  return (
    <article
      className="tool-card"
      data-testid="tool-card"
      data-invocation-id={card.invocationId}
      data-status={card.status}
      aria-label={s.card.label(card.displayName)}
      aria-busy={card.status === 'running'}
    >
      <header className="tool-card-head">
        <h3 className="tool-card-title">
          {card.displayName} <code className="muted">+{card.slug}</code>
        </h3>
        <span className={STATUS_CLASS[card.status]} data-testid="tool-card-status">
          {s.card.status[card.status]}
        </span>
        {card.durationMs !== undefined && <span className="muted tool-card-duration">{s.card.duration(formatDuration(card.durationMs))}</span>}
        {card.decision && card.status !== 'denied' && (
          <span className="badge" data-testid="tool-card-decision">
            {s.card.decision[card.decision]}
          </span>
        )}
        <span className="muted tool-card-source">{s.card.source[card.source]}</span>
      </header>
      {card.status === 'awaiting-answer' && card.task ? (
        <QuestionAnswer card={card} />
      ) : awaiting && placement === 'in-task' && !card.consent?.answer ? (
        <p className="muted approval-above" role="status" data-testid="approval-above">
          {s.tasks.answerAbove}
        </p>
      ) : awaiting && card.consent && !card.consent.answer ? (
        <ConsentForm consent={card.consent} />
      ) : awaiting && conversationId ? (
        <>
          <ApprovalWhy info={card.approval} />
          {card.approval?.reason.kind === 'script' && card.bundleId && <ScriptApprovalSource tool={{ bundleId: card.bundleId, slug: card.slug, version: card.version }} name={card.displayName} />}
          <ApprovalForm conversationId={conversationId} invocationId={card.invocationId} args={card.args} />
        </>
      ) : (
        <details className="tool-card-args">
          <summary>
            {s.card.args}
            {noArgs && <span className="muted"> ({s.card.noArgs})</span>}
          </summary>
          {!noArgs && <pre data-testid="tool-card-args">{valueText(card.args)}</pre>}
        </details>
      )}
      {card.consent && !(awaiting && !card.consent.answer) && <ConsentAnswered consent={card.consent} />}
      {card.status === 'denied' && card.denyReason && (
        <p className="denied-reason" data-testid="tool-card-deny-reason">
          {s.actions.deniedBecause(card.denyReason)}
        </p>
      )}
      <CardActions card={card} rerun={card.source === 'user' && !!conversationId && card.status !== 'running' && !!card.bundleId} saveAsEval={card.source === 'model' && !awaiting && card.status !== 'running' && conversationId && messageId ? { conversationId, messageId } : undefined} />
      {card.status === 'running' && (
        <>
          <p className="muted" role="status">
            <span className="spinner" aria-hidden="true" /> {s.card.running}
          </p>
          <InvocationProgress invocationId={card.invocationId} label={s.card.progress(card.displayName)} />
          <McpCallQuestion invocationId={card.invocationId} />
        </>
      )}
      {card.hasApp && card.bundleId && (card.status === 'ok' || card.status === 'running' || card.status === 'error') && (
        <McpAppSlot
          call={{
            bundleId: card.bundleId,
            slug: card.slug,
            version: card.version,
            args: card.args,
            ended: card.status !== 'running',
            ...(card.status === 'ok' ? { value: card.value } : {}),
            ...(card.error ? { error: `${card.error.code}: ${card.error.message}` } : {}),
          }}
          // Only a chat's own card may post into it (a task's card names the task's conversation).
          {...(conversationId && placement === 'root' ? { conversationId } : {})}
        />
      )}
      {card.task?.kind === 'agent' && placement === 'root' && <TaskApprovals card={card} />}
      {card.task?.kind === 'agent' && <TaskTimeline card={card} inChat={inChat} />}
      {card.documents?.length ? (
        <p className="muted small" data-testid="tool-card-documents">
          {s.tasks.documents}: {card.documents.join(', ')}
        </p>
      ) : null}
      {stored && <StoredGate info={stored} invocationId={card.invocationId} {...(conversationId ? { conversationId } : {})} />}
      {card.extraction && <ExtractionView x={card.extraction} />}
      {card.manifest && <ManifestView manifest={card.manifest} />}
      {card.error && (
        <div className="result-error" role="alert" data-testid="tool-card-error">
          <p>
            <code className="error-code">{card.error.code}</code> {card.error.message}
          </p>
          <FixItAction error={card.error} />
        </div>
      )}
      {stored
        ? !card.manifest &&
          card.value !== undefined && (
            <div className="stored-preview">
              <p className="muted small">{outputStrings.gate.preview}</p>
              <ValueView value={card.value} />
            </div>
          )
        : !card.manifest && !card.error && card.status !== 'running' && card.status !== 'awaiting-answer' && !awaiting && card.status !== 'denied' && <ValueView value={card.value} truncated={card.valueTruncated} toolName={card.displayName} bundleId={card.bundleId} />}
    </article>
  );
}

/**
 * A palette run again (its tool's form opens in the composer, filled with this run's
 * arguments), and any finished call of a registry tool opened in the tester: the Tools screen
 * on the call's exact tool version, its arguments filled in, its result there to compare.
 */
function CardActions({ card, rerun: showRerun, saveAsEval }: { card: ToolCardData; rerun: boolean; saveAsEval?: { conversationId: string; messageId: string } }) {
  const rerun = useRerun((st) => st.rerun);
  const openReplay = useReplay((st) => st.open);
  const showTester = canOpenInTester(card);
  if (!showRerun && !showTester && !saveAsEval) return null;
  const openInTester = () => {
    openReplay(replaySourceOf(card));
    useUi.getState().selectBundle(card.bundleId);
    useUi.getState().go('tools');
  };
  return (
    <div className="tool-card-actions">
      {showRerun && (
        <button
          type="button"
          data-testid="tool-card-rerun"
          title={s.actions.rerunLabel(card.displayName)}
          onClick={() => rerun({ bundleId: card.bundleId, slug: card.slug, version: card.version, args: card.args })}
        >
          {s.actions.rerun}
        </button>
      )}
      {showTester && (
        <button type="button" data-testid="tool-card-open-tester" title={s.actions.openInTesterLabel(card.displayName, card.version)} onClick={openInTester}>
          {s.actions.openInTester}
        </button>
      )}
      {saveAsEval && <SaveAsEvalButton {...saveAsEval} className="" about={card.displayName} />}
    </div>
  );
}

