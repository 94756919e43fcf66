/**
 * The Inspect screen: tabs for the buffers of a conversation (the one open in Chat, or one picked in
 * the conversation bar above the tabs that show one conversation's things), the workspace files, its documents,
 * stored outputs, memory and the timeline. A manifest's link (useUi().inspectTarget) picks
 * the tab and opens its buffer or file; a stored output's link on a tool card, its handle.
 */
import { useLayoutEffect, useRef, type KeyboardEvent } from 'react';
import { EmptyState } from '../../components/EmptyState';
import { t } from '../../i18n/strings';
import { useUi } from '../../stores/ui';
import { BuffersTab } from './BuffersTab';
import { DocumentsTab } from './DocumentsTab';
import { FilesTab } from './FilesTab';
import { MemoryTab } from './MemoryTab';
import { OutputsTab } from './OutputsTab';
import { TimelineTab } from './TimelineTab';
import { TasksTab } from './TasksTab';
import { INSPECT_TABS as TABS, useInspect, type InspectTab } from './inspect-store';
import { ConversationBar, useBufferOwner, useInspectedConversation } from './ConversationBar';
import './inspect.css';

/** The tabs that show one conversation's things (Files and Documents are the workspace's, shared by all). */
const CONVERSATION_TABS: ReadonlySet<InspectTab> = new Set(['buffers', 'outputs', 'memory', 'tasks', 'timeline']);

export function InspectScreen() {
  const tab = useInspect((s) => s.tab);
  const setTab = useInspect((s) => s.setTab);
  const handleTarget = useInspect((s) => s.handleTarget);
  const target = useUi((s) => s.inspectTarget);
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const inspected = useInspectedConversation();
  const bufferOwner = useBufferOwner();

  // Before paint, so a link lands on its tab without showing the previous one first.
  useLayoutEffect(() => {
    if (target) handleTarget(target);
  }, [target, handleTarget]);

  const onKeyDown = (e: KeyboardEvent, i: number) => {
    const delta = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (!delta) return;
    e.preventDefault();
    const next = (i + delta + TABS.length) % TABS.length;
    setTab(TABS[next]!);
    refs.current[next]?.focus();
  };

  return (
    <section className="screen wide inspect-screen" aria-labelledby="inspect-title" data-testid="screen-inspect">
      <header className="screen-header">
        <h1 id="inspect-title">{t.inspect.title}</h1>
      </header>
      <div role="tablist" aria-label={t.inspect.title} className="tabs">
        {TABS.map((name, i) => (
          <button
            key={name}
            ref={(el) => {
              refs.current[i] = el;
            }}
            role="tab"
            id={`inspect-tab-${name}`}
            data-testid={`inspect-tab-${name}`}
            aria-selected={tab === name}
            aria-controls={`inspect-panel-${name}`}
            tabIndex={tab === name ? 0 : -1}
            className={tab === name ? 'tab active' : 'tab'}
            onClick={() => setTab(name)}
            onKeyDown={(e) => onKeyDown(e, i)}
          >
            {t.inspect.tabs[name]}
          </button>
        ))}
      </div>
      {CONVERSATION_TABS.has(tab) && <ConversationBar shown={tab === 'buffers' ? bufferOwner : inspected} />}
      <div role="tabpanel" id={`inspect-panel-${tab}`} aria-labelledby={`inspect-tab-${tab}`} className="tab-panel">
        {tab === 'buffers' ? (
          <BuffersTab />
        ) : tab === 'files' ? (
          <FilesTab />
        ) : tab === 'documents' ? (
          <DocumentsTab />
        ) : tab === 'outputs' ? (
          <OutputsTab />
        ) : tab === 'memory' ? (
          <MemoryTab key={inspected ?? ''} />
        ) : tab === 'tasks' ? (
          <TasksTab />
        ) : tab === 'timeline' ? (
          <TimelineTab />
        ) : (
          <EmptyState title={t.inspect.tabs[tab]} testId={`inspect-empty-${tab}`}>
            {t.inspect.empty[tab]}
          </EmptyState>
        )}
      </div>
    </section>
  );
}
