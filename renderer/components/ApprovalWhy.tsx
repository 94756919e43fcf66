/**
 * Why a call waits for approval, shown where the user answers: the chat's approval card and the
 * app's prompt for calls served over MCP. Plain text only.
 *
 *   <ApprovalWhy info={card.approval} />
 */
import { Fragment } from 'react';
import type { ApprovalInfo } from '../../shared/model/tool-approval';
import { approvalStrings as s } from '../i18n/approval-strings';
import { approvalWhy } from './approval-why';

export function ApprovalWhy({ info }: { info: ApprovalInfo | undefined }) {
  if (!info) return null;
  const why = approvalWhy(info);
  return (
    <div className="approval-why" data-testid="approval-why">
      <p className="muted small" data-testid="approval-why-reason">
        {why.reason}
      </p>
      {why.hints && (
        <p className="muted small" data-testid="approval-why-hints">
          {s.hintsLabel}:{' '}
          {why.hints.map((h) => (
            <Fragment key={h.key}>
              <span className={h.danger ? 'badge danger' : 'badge'} data-hint={h.key}>
                {h.text}
              </span>{' '}
            </Fragment>
          ))}
          {why.noHints && <span data-testid="approval-why-no-hints">{why.noHints}</span>}
        </p>
      )}
    </div>
  );
}
