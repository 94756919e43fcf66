/**
 * The live tester beside the tool editor: an arguments form (or JSON), Run (Ctrl/Cmd+Enter)
 * and Cancel (Esc), the result, the tool's saved test cases and its recent runs. With
 * `draft` it runs the editor's unsaved body ('tools.tryDraft'); without, the saved version
 * ('tools.invoke', source 'tester'). A chat call opened here ("Open in tester") fills in its
 * arguments once and compares each run with the chat's result (ReplayCompare).
 *
 * Mount it with the tool's address and argSchema, e.g. for a saved tool view `tool`:
 *   <Tester bundleId={tool.bundleId} slug={tool.slug} version={tool.version} toolId={tool.id} argSchema={tool.argSchema} />
 * and for an editor's draft body `body` (a ToolPutBody, possibly invalid):
 *   <Tester bundleId={bundleId} slug={slug} version={version} toolId={savedTool?.id} argSchema={body.argSchema} draft={body} />
 */
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { InvokeResult } from '../../../../shared/contract';
import type { Result } from '../../../../shared/errors';
import type { JsonSchemaObject, ToolType } from '../../../../shared/model/tool';
import { McpAppSlot } from '../../mcp-apps/McpAppSlot';
import { McpCallQuestion } from '../../mcp-server/McpQuestionPrompt';
import { useApi } from '../../../api/hooks';
import { FieldError } from '../../../components/Field';
import { testerStrings as s } from '../../../i18n/tester-strings';
import { BusyButton } from '../BusyButton';
import { ArgsForm } from './ArgsForm';
import { ResultView, type RunState } from './ResultView';
import { RunHistory } from './RunHistory';
import { UsageDashboard } from '../usage/UsageDashboard';
import { initialValue, isPlainObject } from './schema-form';
import { ReplayCompare } from './ReplayCompare';
import { ScriptRunDetails } from '../script/ScriptRunDetails';
import { useReplay } from './replay-store';
import { TestCases } from './TestCases';
import { useArgIssues, useTesterArgs } from './use-arg-issues';
import './tester.css';

export interface TesterProps {
  bundleId: string;
  slug: string;
  version: string;
  /** The saved tool's id, for its run history; absent for a tool never saved. */
  toolId?: string;
  argSchema: JsonSchemaObject;
  /** The editor's unsaved tool body: runs and test cases use it instead of the saved version. */
  draft?: unknown;
  /** The saved tool's type (a draft's is in its body): a script's logs and errors are shown under the result. */
  toolType?: ToolType;
}

/** A fresh tester (args, result) for each tool; a new version of the same tool keeps them. */
export function Tester(props: TesterProps) {
  return <TesterPanel key={`${props.bundleId}\u0000${props.slug}`} {...props} />;
}

function TesterPanel({ bundleId, slug, version, toolId, argSchema, draft, toolType }: TesterProps) {
  const { client } = useApi();
  const titleId = useId();
  const schema = isPlainObject(argSchema) ? argSchema : {};
  const [args, setArgs] = useTesterArgs(bundleId, slug, () => initialValue(schema, schema) ?? {});
  const [argsValid, setArgsValid] = useState(true);
  const { issues, checkNow } = useArgIssues(schema, args);
  /** The user tried to run: missing required fields are shown too. */
  const [tried, setTried] = useState(false);
  const formRef = useRef<HTMLDivElement>(null);
  const [run, setRun] = useState<RunState>({ status: 'idle' });
  /** The arguments the last run was sent with (a chat call's comparison and its test case use them). */
  const [ranWith, setRanWith] = useState<unknown>(undefined);
  const [cancelling, setCancelling] = useState(false);
  /** The invocation in flight; a late answer for any other id is ignored. */
  const inFlight = useRef<string | null>(null);
  const running = run.status === 'running';
  const isScript = (draft === undefined ? toolType : (draft as { type?: unknown } | null)?.type) === 'script';

  // Leaving the tester cancels its run rather than leaving it to time out.
  useEffect(
    () => () => {
      const id = inFlight.current;
      inFlight.current = null;
      if (id) void client.call('invocations.cancel', { invocationId: id }).catch(() => undefined);
    },
    [client],
  );

  const start = async () => {
    if (!argsValid || inFlight.current) return;
    setTried(true);
    // What the core would refuse is shown on the fields instead of being sent.
    const found = await checkNow();
    if (found.length > 0) {
      requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    // Sent: a field emptied from now on is flagged missing at the next try, not as it is typed.
    setTried(false);
    if (inFlight.current) return;
    const invocationId = newInvocationId();
    inFlight.current = invocationId;
    setRanWith(args);
    setCancelling(false);
    setRun({ status: 'running', invocationId });
    let r: Result<InvokeResult>;
    try {
      r =
        draft === undefined
          ? await client.call('tools.invoke', { bundleId, slug, version, args, invocationId, source: 'tester' })
          : await client.call('tools.tryDraft', { bundleId, slug, version, body: draft, args, invocationId });
    } catch (e) {
      r = { ok: false, error: { code: 'UNAVAILABLE', message: (e as Error).message } };
    }
    if (inFlight.current !== invocationId) return;
    inFlight.current = null;
    setCancelling(false);
    setRun(r.ok ? { status: 'done', result: r.value } : { status: 'failed', error: r.error });
    // The history follows with 'invocations.logged' once the log has written the run (api/invalidation.ts).
  };

  const cancel = async () => {
    const invocationId = inFlight.current;
    if (!invocationId) return;
    setCancelling(true);
    // The run's own answer (CANCELLED) ends it; this only asks.
    await client.call('invocations.cancel', { invocationId }).catch(() => undefined);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void start();
    } else if (e.key === 'Escape' && inFlight.current) {
      e.preventDefault();
      void cancel();
    }
  };

  // A chat call opened in the tester ("Open in tester"): this exact version gets its arguments once, and its runs are compared with it.
  const replay = useReplay((st) => st.active);
  const replaying = replay && draft === undefined && replay.bundleId === bundleId && replay.slug === slug && replay.version === version ? replay : null;
  // Opened while this tool runs: the arguments load when the run ends (its status is a dependency).
  const runStatus = run.status;
  useEffect(() => {
    if (!replaying || replaying.argsLoaded || inFlight.current) return;
    setArgs(structuredClone(replaying.args));
    setRun({ status: 'idle' });
    setTried(false);
    useReplay.getState().markArgsLoaded(replaying.id);
  }, [replaying, setArgs, runStatus]);

  const onValidityChange = useCallback((valid: boolean) => setArgsValid(valid), []);
  const loadArgs = useCallback((a: unknown) => setArgs(a), [setArgs]);

  return (
    <section className="tester" aria-labelledby={titleId} onKeyDown={onKeyDown} data-testid="tester">
      <header className="section-head">
        <h2 id={titleId}>{s.title}</h2>
        <p className="help">{s.shortcuts}</p>
      </header>
      <div ref={formRef}>
        <ArgsForm schema={schema} value={args} onChange={setArgs} onValidityChange={onValidityChange} issues={issues} showMissing={tried} onSubmit={() => void start()} />
      </div>
      <div className="form-actions tester-actions">
        <BusyButton
          className="primary"
          data-testid="tester-run"
          aria-keyshortcuts="Control+Enter Meta+Enter"
          unavailable={!argsValid || running}
          aria-describedby={argsValid ? undefined : `${titleId}-args-invalid`}
          onClick={() => void start()}
        >
          {running ? s.run.running : s.run.run}
        </BusyButton>
        <BusyButton data-testid="tester-cancel" aria-keyshortcuts="Escape" unavailable={!running || cancelling} onClick={() => void cancel()}>
          {cancelling ? s.run.cancelling : s.run.cancel}
        </BusyButton>
        {!argsValid && (
          <FieldError as="span" id={`${titleId}-args-invalid`}>
            {s.run.argsInvalid}
          </FieldError>
        )}
        {argsValid && tried && issues.length > 0 && (
          <FieldError as="span" data-testid="tester-args-issues">
            {s.run.argsIssues(issues.length)}
          </FieldError>
        )}
      </div>
      <ResultView state={run} toolName={slug} bundleId={bundleId} />
      {isScript && <ScriptRunDetails run={run} tool={{ bundleId, slug, version }} name={slug} {...(draft === undefined ? { onTrusted: () => void start() } : {})} />}
      {run.status === 'running' && <McpCallQuestion invocationId={run.invocationId} />}
      {toolId && draft === undefined && run.status !== 'idle' && (
        <McpAppSlot
          key={run.status === 'running' ? run.invocationId : run.status === 'done' ? run.result.invocationId : 'failed'}
          call={{
            bundleId,
            slug,
            version,
            args: ranWith,
            ended: run.status !== 'running',
            ...(run.status === 'done' ? { value: run.result.value } : {}),
            ...(run.status === 'failed' ? { error: `${run.error.code}: ${run.error.message}` } : {}),
          }}
        />
      )}
      {replaying && <ReplayCompare source={replaying} run={run} ranWith={ranWith} bundleId={bundleId} slug={slug} onDismiss={() => useReplay.getState().dismiss()} />}
      <TestCases bundleId={bundleId} slug={slug} version={version} draft={draft} args={args} argsValid={argsValid} onLoadArgs={loadArgs} />
      <RunHistory bundleId={bundleId} slug={slug} toolId={toolId} includeDrafts={draft !== undefined || !toolId} onLoad={loadArgs} />
      {toolId && draft === undefined && <UsageDashboard bundleId={bundleId} slug={slug} version={version} />}
    </section>
  );
}

/** A UUID the core accepts as an invocation id; randomUUID needs a secure context, which the app always is. */
function newInvocationId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
