/**
 * The chat's right column: Workflows, Context and Conversation settings, each folding away on
 * its own; the whole column folds to a narrow rail (remembered across reloads) so the messages
 * get its width.
 */
import { useId, useState, type ReactNode } from 'react';
import { chatStrings as s, conversationOptionsStrings } from '../../i18n/chat-strings';
import { ContextPanel } from './ContextPanel';
import { ConversationOptions } from './ConversationOptions';
import { ToolTokenUse } from './ToolTokenUse';
import { usageStrings } from '../../i18n/usage-strings';
import { WorkflowPanel } from './WorkflowPanel';

/** `lazy`: folded at first, and its content is made only while it is open (it reads what it shows). */
function Part({ title, testId, children, lazy = false }: { title: string; testId: string; children: ReactNode; lazy?: boolean }) {
  const [open, setOpen] = useState(!lazy);
  const id = useId();
  return (
    <section className="side-part" aria-labelledby={`${id}-title`} data-testid={testId}>
      <h2 id={`${id}-title`} className="side-part-title">
        <button type="button" aria-expanded={open} aria-controls={`${id}-body`} title={open ? s.side.collapse(title) : s.side.expand(title)} onClick={() => setOpen((o) => !o)}>
          <span className="disclosure" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          {title}
        </button>
      </h2>
      <div id={`${id}-body`} hidden={!open}>
        {(open || !lazy) && children}
      </div>
    </section>
  );
}

export function SidePanel({ collapsed, onCollapse }: { collapsed: boolean; onCollapse(collapsed: boolean): void }) {
  if (collapsed) {
    return (
      <aside className="chat-side collapsed" aria-label={s.side.label} data-testid="chat-side" data-collapsed="true">
        <button type="button" className="icon-button side-toggle" data-testid="side-toggle" aria-expanded={false} title={s.side.showPanel} aria-label={s.side.showPanel} onClick={() => onCollapse(false)}>
          <span aria-hidden="true">«</span>
          <span className="side-rail-label">{s.side.railLabel}</span>
        </button>
      </aside>
    );
  }
  return (
    <aside className="chat-side" aria-label={s.side.label} data-testid="chat-side" data-collapsed="false">
      <div className="side-head">
        <button type="button" className="icon-button side-toggle" data-testid="side-toggle" aria-expanded={true} title={s.side.hidePanel} aria-label={s.side.hidePanel} onClick={() => onCollapse(true)}>
          <span aria-hidden="true">»</span>
        </button>
      </div>
      <Part title={s.workflows.title} testId="side-workflows">
        <WorkflowPanel />
      </Part>
      <Part title={s.context.title} testId="side-context">
        <ContextPanel />
      </Part>
      <Part title={conversationOptionsStrings.title} testId="side-conversation-options" lazy>
        <ConversationOptions />
      </Part>
      <Part title={usageStrings.tokens.title} testId="side-tool-tokens" lazy>
        <ToolTokenUse />
      </Part>
    </aside>
  );
}
