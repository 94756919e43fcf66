import { memo, useCallback, useEffect, useMemo, useRef, useState, type CSSProperties, type ReactNode } from 'react';
import type { Bundle } from '../../../../shared/model/bundle';
import type { ToolView } from '../../../../shared/model/tool';
import { useApi, useOp, usePagedOp } from '../../../api/hooks';
import { EmptyState } from '../../../components/EmptyState';
import { QueryError } from '../../../components/QueryError';
import { useUnsavedChanges } from '../../../components/UnsavedChanges';
import { editorStrings } from '../../../i18n/editor-strings';
import { findabilityStrings } from '../../../i18n/findability-strings';
import { suiteStrings } from '../../../i18n/suite-strings';
import { useUi } from '../../../stores/ui';
import { BundleList } from '../BundleList';
import { FindabilityReport } from '../findability/FindabilityReport';
import { EvalsPane } from '../evals/EvalsPane';
import { useEvalsOpen } from '../evals/evals-open-store';
import { evalsStrings } from '../../../i18n/evals-strings';
import { SuiteReport } from '../suite/SuiteReport';
import { useSuiteRun, type SuiteScope } from '../suite/suite-run-store';
import type { RunningSuite } from '../../../../shared/model/testcase';
import { useReplay } from '../tester/replay-store';
import { useCreatedTool } from '../import/created-tool-store';
import { useScriptSource } from '../script/use-script-source';
import { ToolList } from '../ToolList';
import { BundleForm } from './BundleForm';
import { ToolEditor, type ToolDraftSnapshot, type ToolEditorMode } from './ToolEditor';
import { SplitDivider, useEditorShare } from './SplitDivider';
import './editor.css';

const w = editorStrings.workbench;

/** What the right-hand pane shows. */
type Pane =
  | { kind: 'none' }
  | { kind: 'bundle'; bundleId: string | null; known?: Bundle }
  | { kind: 'tool'; bundleId: string; slug: string; version: string; known?: ToolView }
  | { kind: 'draft'; bundleId: string; from?: ToolView; seq: number }
  /** The test report of the suite run last (suite/suite-run-store.ts). */
  | { kind: 'suite' }
  /** How findable the user's tools are for a model's tool search (findability/). */
  | { kind: 'findability' }
  /** A bundle's eval cases, runs and their reports (evals/). */
  | { kind: 'evals'; bundleId: string; caseId?: string; tool?: string; seq: number };

/** What a tester mounted in the slot may use: the open saved tool, or the draft being edited. */
export interface TesterContext {
  tool?: ToolView;
  draft?: ToolDraftSnapshot;
  /** A draft is open (its snapshot may not have come yet). */
  drafting?: boolean;
}

export interface ToolsWorkbenchProps {
  /** Mounted on the right of the editor; a function gets the open tool or draft. */
  testerSlot?: ReactNode | ((ctx: TesterContext) => ReactNode);
}

const Bundles = memo(BundleList);
const Tools = memo(ToolList);

/** Why tools cannot be added to a bundle right now, or null. */
function addBlockedReason(b: Bundle | undefined): string | null {
  if (!b) return w.chooseBundle;
  if (b.isBuiltIn) return w.builtInBundle;
  if (b.softDeletedAt) return w.deletedBundle;
  if (!b.isEnabled) return w.disabledBundle;
  return null;
}

let draftSeq = 0;

/**
 * The open saved tool or bundle, kept while the Tools screen is away (Chat and back finds
 * it open). A draft is not kept: leaving it asks first, like any unsaved edit.
 */
let keptPane: Pane = { kind: 'none' };

/**
 * The Tools screen's working area: bundles on the left, the tools of the chosen bundle (or
 * a search across all) in the middle, and on the right the open bundle or tool in its
 * editor, with the tester beside it. Moving away from unsaved edits asks first.
 */
export function ToolsWorkbench({ testerSlot }: ToolsWorkbenchProps) {
  const { toolsBundleId, selectBundle } = useUi();
  const [pane, setPane] = useState<Pane>(() => keptPane);
  useEffect(() => {
    keptPane = pane.kind === 'draft' ? (pane.from ? { kind: 'tool', bundleId: pane.from.bundleId, slug: pane.from.slug, version: pane.from.version, known: pane.from } : { kind: 'none' }) : pane;
  }, [pane]);
  const [share, setShare] = useEditorShare();
  const detailRef = useRef<HTMLDivElement>(null);
  const testerRef = useRef<HTMLElement>(null);
  const [dirty, setDirty] = useState(false);
  const [notice, setNotice] = useState<string | undefined>();
  const [draftSnapshot, setDraftSnapshot] = useState<ToolDraftSnapshot | null>(null);
  const unsaved = useUnsavedChanges(dirty, { screen: true });
  const { guard } = unsaved;

  // The same query as BundleList's, so it shares its cache.
  const bundles = usePagedOp('bundles.list', { includeDisabled: true, includeDeleted: true, pageSize: 100 });
  const bundleList = useMemo(() => bundles.data?.pages.flatMap((p) => p.items) ?? [], [bundles.data]);
  const bundleById = useCallback((id: string | null | undefined) => (id ? bundleList.find((b) => b.id === id) : undefined), [bundleList]);
  const selectedBundle = bundleById(toolsBundleId);
  const blocked = addBlockedReason(selectedBundle);

  /**
   * Changes the pane; asks first when there are unsaved edits, unless they were just saved.
   * `then` follows the change; `onKeep` is told when the person kept their edits instead.
   */
  const show = useCallback(
    (next: Pane, opts: { notice?: string; afterSave?: boolean; then?: () => void; onKeep?: () => void } = {}): void => {
      const change = () => {
        setDirty(false);
        setNotice(opts.notice);
        setPane(next);
        opts.then?.();
      };
      if (opts.afterSave) change();
      else guard(change, opts.onKeep ? { onKeep: opts.onKeep } : {});
    },
    [guard],
  );

  const { client } = useApi();
  const suiteRunning = useSuiteRun((st) => st.run?.status === 'running');
  const hasSuite = useSuiteRun((st) => st.run !== null);
  const startSuite = useSuiteRun((st) => st.start);
  const clearSuite = useSuiteRun((st) => st.clear);
  /** Runs the saved test cases of a bundle or of all; while a suite runs, shows its report instead. */
  const runSuite = useCallback(
    (scope: SuiteScope) => {
      show(
        { kind: 'suite' },
        {
          then: () => {
            // The suite's calls reach the history and usage figures with 'invocations.logged' (api/invalidation.ts).
            if (useSuiteRun.getState().run?.status !== 'running') startSuite(client, scope);
          },
        },
      );
    },
    [show, startSuite, client],
  );

  // A suite running in the app that this window did not start (it was reloaded while one ran):
  // its report is followed, and shown when nothing else is open.
  useEffect(() => {
    let live = true;
    const scopeOf = async (suite: RunningSuite): Promise<SuiteScope> => {
      const ids = suite.bundleIds;
      if (!ids || ids.length === 0) return { kind: 'all' };
      const names = await Promise.all(
        ids.map(async (bundleId) => {
          const b = await client.call('bundles.get', { bundleId }).catch(() => undefined);
          return b?.ok ? b.value.displayName : bundleId;
        }),
      );
      return ids.length === 1 ? { kind: 'bundle', bundleId: ids[0]!, name: names[0]! } : { kind: 'bundles', bundleIds: ids, names };
    };
    void useSuiteRun
      .getState()
      .attach(client, scopeOf)
      .then((found) => {
        if (found && live) setPane((p) => (p.kind === 'none' ? { kind: 'suite' } : p));
      });
    return () => {
      live = false;
    };
  }, [client]);

  const openTool = useCallback(
    (tool: ToolView) => show({ kind: 'tool', bundleId: tool.bundleId, slug: tool.slug, version: tool.version, known: tool }),
    [show],
  );

  // A chat call opened in the tester ("Open in tester" on its card): its exact tool version.
  const replayToOpen = useReplay((st) => st.toOpen);
  useEffect(() => {
    if (!replayToOpen) return;
    const source = useReplay.getState().takeToOpen();
    // Kept edits the user chose not to leave: the call is not opened, and not kept for later either.
    if (source) show({ kind: 'tool', bundleId: source.bundleId, slug: source.slug, version: source.version }, { onKeep: () => useReplay.getState().dismiss() });
  }, [replayToOpen, show]);

  // Evals handed over (a case saved from the chat): the bundle's evals, that case open.
  const evalsToOpen = useEvalsOpen((st) => st.toOpen);
  useEffect(() => {
    if (!evalsToOpen) return;
    const target = useEvalsOpen.getState().take();
    if (target) show({ kind: 'evals', ...target, seq: ++draftSeq });
  }, [evalsToOpen, show]);

  // A tool an importer just made: opened with its tester, scrolled into view (the import panel is below).
  const createdToOpen = useCreatedTool((st) => st.toOpen);
  /** Set when it opens: the focus goes to the tester's first argument, its value selected (or to Run), a run coming next. */
  const focusTester = useRef(false);
  useEffect(() => {
    if (!createdToOpen) return;
    const created = useCreatedTool.getState().take();
    if (!created) return;
    const { tool, notice } = created;
    show(
      { kind: 'tool', bundleId: tool.bundleId, slug: tool.slug, version: tool.version, known: tool },
      {
        notice,
        then: () => {
          detailRef.current?.scrollIntoView?.({ block: 'start' });
          focusTester.current = true;
        },
      },
    );
  }, [createdToOpen, show]);
  // Runs after the opened editor has put the focus on its heading (a child's effects run first).
  useEffect(() => {
    if (!focusTester.current || pane.kind !== 'tool') return;
    focusTester.current = false;
    const first = testerRef.current?.querySelector<HTMLElement>('.args-form :is(input, textarea, select):not([readonly], [disabled]), [data-testid="tester-run"]');
    first?.focus();
    if (first instanceof HTMLInputElement || first instanceof HTMLTextAreaElement) first.select();
  }, [pane]);

  const toolRef = pane.kind === 'tool' ? { bundleId: pane.bundleId, slug: pane.slug, version: pane.version } : { bundleId: '-', slug: '-', version: '-' };
  const toolQuery = useOp('tools.get', toolRef, { enabled: pane.kind === 'tool' });
  const openToolView = pane.kind === 'tool' ? (toolQuery.data ?? pane.known) : undefined;

  // A script tool's source is read before its editor opens (its view does not carry it).
  const script = useScriptSource(pane.kind === 'draft' ? pane.from : openToolView);
  const scriptSource = script.source;
  const editorMode = useMemo<ToolEditorMode | null>(() => {
    if (pane.kind === 'draft') return { kind: 'new', bundleId: pane.bundleId, from: pane.from, scriptSource };
    if (pane.kind === 'tool' && openToolView) return { kind: 'view', tool: openToolView, scriptSource };
    return null;
  }, [pane, openToolView, scriptSource]);

  const onDirtyChange = useCallback((d: boolean) => setDirty(d), []);
  const wantsDraft = typeof testerSlot === 'function';
  const onDraftChange = useCallback((d: ToolDraftSnapshot | null) => setDraftSnapshot(d), []);

  let detail: ReactNode;
  if (pane.kind === 'suite' && hasSuite) {
    detail = (
      <SuiteReport
        onOpenTool={(t) => show({ kind: 'tool', ...t })}
        onRunAgain={runSuite}
        onClose={() => {
          clearSuite();
          show({ kind: 'none' });
        }}
      />
    );
  } else if (pane.kind === 'evals' && bundleById(pane.bundleId)) {
    detail = (
      <EvalsPane
        key={`evals:${pane.bundleId}:${pane.seq}`}
        bundle={bundleById(pane.bundleId)!}
        {...(pane.caseId ? { caseId: pane.caseId } : {})}
        // Opened once: coming back to the screen finds the list.
        onCaseOpened={() => setPane((p) => (p.kind === 'evals' ? { ...p, caseId: undefined } : p))}
        {...(pane.tool ? { tool: pane.tool } : {})}
        onOpenTool={(t) => show({ kind: 'tool', ...t })}
        onClose={() => show({ kind: 'none' }, { afterSave: true })}
        onDirtyChange={onDirtyChange}
      />
    );
  } else if (pane.kind === 'findability') {
    detail = (
      <FindabilityReport
        onOpenTool={(t) => show({ kind: 'tool', ...t })}
        onOpenEvals={(t) => show({ kind: 'evals', ...t, seq: ++draftSeq })}
        onClose={() => show({ kind: 'none' })}
      />
    );
  } else if (pane.kind === 'bundle') {
    const bundle = bundleById(pane.bundleId) ?? pane.known;
    detail = (
      <BundleForm
        key={`bundle:${pane.bundleId ?? 'new'}`}
        bundle={bundle}
        notice={notice}
        onDirtyChange={onDirtyChange}
        onClose={() => show({ kind: 'none' })}
        onSaved={(b, how) => {
          if (how === 'created') selectBundle(b.id);
          const text = how === 'restored' ? editorStrings.bundle.restored : how === 'deleted' ? undefined : editorStrings.bundle.saved;
          show({ kind: 'bundle', bundleId: b.id, known: b }, { notice: text, afterSave: true });
        }}
      />
    );
  } else if (editorMode && script.error) {
    detail = <QueryError error={script.error} onRetry={script.retry} />;
  } else if (editorMode && script.pending) {
    detail = (
      <p className="muted" role="status">
        {editorStrings.json.loading}
      </p>
    );
  } else if (editorMode) {
    const toolBundle = bundleById(editorMode.kind === 'view' ? editorMode.tool.bundleId : editorMode.bundleId);
    detail = (
      <ToolEditor
        key={pane.kind === 'draft' ? `draft:${pane.seq}` : `tool:${openToolView?.id}`}
        mode={editorMode}
        notice={notice}
        newVersionBlocked={editorMode.kind === 'view' ? ((editorMode.tool.type === 'mcp' ? w.mcpTool : addBlockedReason(toolBundle)) ?? undefined) : undefined}
        onDirtyChange={onDirtyChange}
        onDraftChange={wantsDraft ? onDraftChange : undefined}
        onDiscard={() => show({ kind: 'none' })}
        onNewVersion={(tool) => show({ kind: 'draft', bundleId: tool.bundleId, from: tool, seq: ++draftSeq })}
        onSaved={(tool) =>
          show(
            { kind: 'tool', bundleId: tool.bundleId, slug: tool.slug, version: tool.version, known: tool },
            { notice: editorStrings.tool.saved(tool.slug, tool.version), afterSave: true },
          )
        }
      />
    );
  } else if (pane.kind === 'tool' && toolQuery.error) {
    detail = <QueryError error={toolQuery.error} onRetry={() => void toolQuery.refetch()} />;
  } else if (pane.kind === 'tool') {
    detail = (
      <p className="muted" role="status">
        {editorStrings.json.loading}
      </p>
    );
  } else {
    detail = (
      <EmptyState title={w.nothingOpenTitle} testId="editor-empty">
        {w.nothingOpenBody}
      </EmptyState>
    );
  }

  const tester =
    typeof testerSlot === 'function'
      ? testerSlot({
          tool: pane.kind === 'tool' ? openToolView : undefined,
          draft: pane.kind === 'draft' ? (draftSnapshot ?? undefined) : undefined,
          drafting: pane.kind === 'draft',
        })
      : testerSlot;

  return (
    <div className={tester ? 'workbench with-tester' : pane.kind === 'evals' ? 'workbench wide-detail' : 'workbench'} data-testid="tools-workbench">
      <div className="workbench-bundles">
        <div className="workbench-toolbar">
          <button type="button" data-testid="new-bundle" onClick={() => show({ kind: 'bundle', bundleId: null })}>
            {w.newBundle}
          </button>
          <button type="button" data-testid="suite-run-all" title={suiteRunning ? suiteStrings.showRunning : suiteStrings.runAllLabel} onClick={() => runSuite({ kind: 'all' })}>
            {suiteStrings.runAll}
          </button>
          <button type="button" data-testid="findability-open" title={findabilityStrings.openLabel} aria-pressed={pane.kind === 'findability'} onClick={() => show({ kind: 'findability' })}>
            {findabilityStrings.open}
          </button>
        </div>
        <Bundles />
      </div>
      <div className="workbench-tools">
        <div className="workbench-toolbar">
          <button
            type="button"
            className="primary"
            data-testid="new-tool"
            disabled={blocked !== null}
            aria-describedby={blocked ? 'new-tool-blocked' : undefined}
            onClick={() => selectedBundle && show({ kind: 'draft', bundleId: selectedBundle.id, seq: ++draftSeq })}
          >
            {w.newTool}
          </button>
          {selectedBundle && (
            <button type="button" data-testid="edit-bundle" onClick={() => show({ kind: 'bundle', bundleId: selectedBundle.id, known: selectedBundle })}>
              {w.editBundle}
            </button>
          )}
          {selectedBundle && (
            <button
              type="button"
              data-testid="suite-run-bundle"
              title={suiteRunning ? suiteStrings.showRunning : suiteStrings.runBundleLabel(selectedBundle.displayName)}
              onClick={() => runSuite({ kind: 'bundle', bundleId: selectedBundle.id, name: selectedBundle.displayName })}
            >
              {suiteStrings.runBundle}
            </button>
          )}
          {selectedBundle && (
            <button
              type="button"
              data-testid="evals-open"
              title={evalsStrings.openLabel(selectedBundle.displayName)}
              aria-pressed={pane.kind === 'evals' && pane.bundleId === selectedBundle.id}
              onClick={() => show({ kind: 'evals', bundleId: selectedBundle.id, seq: ++draftSeq })}
            >
              {evalsStrings.open}
            </button>
          )}
          {blocked && (
            <p id="new-tool-blocked" className="help">
              {blocked}
            </p>
          )}
        </div>
        <Tools onOpen={openTool} openToolId={openToolView?.id} />
      </div>
      <div
        ref={detailRef}
        className={tester ? 'workbench-detail with-tester' : 'workbench-detail'}
        style={tester ? ({ '--editor-share': `${share}fr`, '--tester-share': `${100 - share}fr` } as CSSProperties) : undefined}
      >
        {tester && (
          // Narrow windows stack the tester under the editor: one click takes the person there.
          <button
            type="button"
            className="workbench-jump"
            data-testid="workbench-jump-tester"
            aria-controls="workbench-tester"
            onClick={() => {
              testerRef.current?.scrollIntoView?.({ block: 'start' });
              testerRef.current?.focus({ preventScroll: true });
            }}
          >
            {w.jumpToTester}
          </button>
        )}
        <section id="workbench-editor" className="workbench-editor" aria-label={w.editorRegion} data-testid="workbench-editor">
          {detail}
        </section>
        {tester && <SplitDivider share={share} onShare={setShare} container={detailRef} controls="workbench-editor" />}
        {tester && (
          <section ref={testerRef} id="workbench-tester" tabIndex={-1} className="workbench-tester" aria-label={w.testerRegion} data-testid="workbench-tester">
            {tester}
          </section>
        )}
      </div>
      {unsaved.prompt}
    </div>
  );
}
