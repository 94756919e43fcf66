/**
 * A bundle's evals in the workbench's detail pane (beside its test cases, which run from the
 * same toolbar): three tabs, Cases (the list, and the editor in its place), Run (the run form,
 * the run going on with its progress and Cancel, and its report) and Saved runs (each run's
 * report, and runs compared). A run started here goes on while the pane or the screen is away.
 */
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { Bundle } from '../../../../shared/model/bundle';
import type { EvalCase } from '../../../../shared/model/evals';
import { useApi, useOp } from '../../../api/hooks';
import { useUnsavedChanges } from '../../../components/UnsavedChanges';
import { evalsStrings } from '../../../i18n/evals-strings';
import { emptyDraft, toDraft, type CaseDraft } from './eval-case-form';
import { useEvalRun } from './eval-run-store';
import { EvalCaseEditor } from './EvalCaseEditor';
import { EvalCaseList } from './EvalCaseList';
import type { OpenTool } from './EvalReport';
import { EvalRunPanel } from './EvalRunPanel';
import { EvalRunsList } from './EvalRunsList';
import './evals.css';

const s = evalsStrings;
const TABS = ['cases', 'run', 'runs'] as const;
type Tab = (typeof TABS)[number];

export interface EvalsPaneProps {
  bundle: Bundle;
  /** A case to open in the editor at once. */
  caseId?: string;
  /** Told when that case was opened. */
  onCaseOpened?: () => void;
  /** Only the cases that expect this tool. */
  tool?: string;
  onOpenTool: OpenTool;
  onClose: () => void;
  /** The editor holds unsaved changes. */
  onDirtyChange?: (dirty: boolean) => void;
}

export function EvalsPane({ bundle, caseId, onCaseOpened, tool: toolFilter, onOpenTool, onClose, onDirtyChange }: EvalsPaneProps) {
  const uid = useId();
  const { client } = useApi();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);
  const running = useEvalRun((st) => st.run?.status === 'running' && (st.run.bundleIds === null || st.run.bundleIds.includes(bundle.id)));
  const [tab, setTab] = useState<Tab>(running ? 'run' : 'cases');
  const [tool, setTool] = useState(toolFilter);
  const [editing, setEditing] = useState<CaseDraft | null>(null);
  const [dirty, setDirty] = useState(false);
  const [notice, setNotice] = useState<string | undefined>();
  const [only, setOnly] = useState<string[] | undefined>();
  const unsaved = useUnsavedChanges(!!editing && dirty, { detail: s.editor.confirmLeave });
  const all = useOp('evals.list', { bundleId: bundle.id }, { staleTime: 0, refetchOnMount: 'always' });
  const cases = all.data ?? [];

  // Opened: the keyboard continues from the pane.
  useEffect(() => headingRef.current?.focus(), [bundle.id]);
  // A run going on in the app that this window did not start (a reload): followed here.
  useEffect(() => {
    void useEvalRun.getState().attach(client);
  }, [client]);
  // A case handed over (saved from the chat): opened in the editor once the list has it.
  const wanted = useRef(caseId);
  useEffect(() => {
    const c = wanted.current && all.data?.find((x) => x.id === wanted.current);
    if (!c) return;
    wanted.current = undefined;
    setTab('cases');
    setEditing(toDraft(c));
    onCaseOpened?.();
  }, [all.data, onCaseOpened]);

  const changeDirty = useCallback(
    (d: boolean) => {
      setDirty(d);
      onDirtyChange?.(d);
    },
    [onDirtyChange],
  );
  /** Closes the editor, asking first when it holds changes; `then` follows once it closed. */
  const leaveEditor = (then?: () => void) =>
    unsaved.guard(() => {
      setEditing(null);
      changeDirty(false);
      then?.();
    });
  const go = (next: Tab) => {
    if (next !== tab) leaveEditor(() => setTab(next));
  };
  const onTabKey = (e: KeyboardEvent, i: number) => {
    let next: number;
    if (e.key === 'ArrowRight') next = (i + 1) % TABS.length;
    else if (e.key === 'ArrowLeft') next = (i - 1 + TABS.length) % TABS.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = TABS.length - 1;
    else return;
    e.preventDefault();
    // A key that stays on the chosen tab moves nothing.
    if (TABS[next] === tab) return;
    leaveEditor(() => {
      setTab(TABS[next]!);
      tabRefs.current[next]?.focus();
    });
  };
  const edit = (c?: EvalCase) => {
    setNotice(undefined);
    setEditing(c ? toDraft(c) : emptyDraft(tool && !tool.includes('/') ? tool : ''));
  };
  const run = (ids?: string[]) => {
    setOnly(ids);
    setTab('run');
  };

  return (
    <section className="evals" aria-labelledby={`${uid}-title`} data-testid="evals-pane" data-bundle={bundle.slug}>
      <header className="evals-head">
        <h2 id={`${uid}-title`} ref={headingRef} tabIndex={-1}>
          {s.title(bundle.displayName)}
        </h2>
        <button type="button" data-testid="evals-close" onClick={() => leaveEditor(onClose)}>
          {s.close}
        </button>
      </header>
      <p className="muted evals-intro">{s.intro}</p>
      <div role="tablist" aria-label={s.tabs.label} className="tabs">
        {TABS.map((name, i) => (
          <button
            key={name}
            ref={(el) => {
              tabRefs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`${uid}-tab-${name}`}
            data-testid={`evals-tab-${name}`}
            aria-selected={tab === name}
            aria-controls={`${uid}-panel`}
            tabIndex={tab === name ? 0 : -1}
            className={tab === name ? 'tab active' : 'tab'}
            onClick={() => go(name)}
            onKeyDown={(e) => onTabKey(e, i)}
          >
            {s.tabs[name]}
            {name === 'cases' && all.data && <span className="badge">{cases.length}</span>}
            {name === 'run' && running && <span className="eval-running-dot" aria-hidden="true" />}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${uid}-panel`} aria-labelledby={`${uid}-tab-${tab}`} className="evals-panel">
        {tab === 'cases' &&
          (editing ? (
            <EvalCaseEditor
              key={editing.id ?? 'new'}
              bundleId={bundle.id}
              initial={editing}
              onDirtyChange={changeDirty}
              onCancel={() => leaveEditor()}
              onSaved={(saved) => {
                setEditing(null);
                changeDirty(false);
                setNotice(s.cases.saved(saved.name));
              }}
            />
          ) : (
            <EvalCaseList
              bundleId={bundle.id}
              bundleSlug={bundle.slug}
              {...(tool ? { tool } : {})}
              notice={notice}
              onShowAll={() => setTool(undefined)}
              onNew={() => edit()}
              onEdit={edit}
              onRun={run}
            />
          ))}
        {tab === 'run' && <EvalRunPanel bundleId={bundle.id} bundleSlug={bundle.slug} cases={cases} {...(only ? { only } : {})} onOpenTool={onOpenTool} />}
        {tab === 'runs' && <EvalRunsList bundleId={bundle.id} bundleSlug={bundle.slug} cases={cases} onOpenTool={onOpenTool} />}
      </div>
      {unsaved.prompt}
    </section>
  );
}
