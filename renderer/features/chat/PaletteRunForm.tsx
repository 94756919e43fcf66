/**
 * The picked tool in the palette: its description, its arguments (the tester's form, with
 * its JSON mode), where its result goes (Output, checked as typed; by default what the
 * composer's `@tools` lines say for it) and the write mode. Run ('chat.runTool') puts a
 * tool card in the conversation; while it runs, its progress shows once it reports some; Cancel
 * ('invocations.cancel') stops a run.
 *
 * The form's values (arguments, output, write mode) live in react-hook-form: the output and
 * the write mode follow the composer's lines until they are edited, the output is checked as
 * typed. The arguments are set whole (setValue, not a Controller: a Controller's onChange
 * takes an object with a `target` for an event, and a tool may well have an argument named so).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useForm } from 'react-hook-form';
import { parseDestination } from '../../../shared/directives/parser';
import type { AggregatedTool } from '../../../shared/directives/types';
import type { ErrorInfo, Result } from '../../../shared/errors';
import type { Message } from '../../../shared/model/conversation';
import { WriteModeSchema, type WriteMode } from '../../../shared/model/routing';
import type { ToolView } from '../../../shared/model/tool';
import { useApi, useOp } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { InvocationProgress } from '../../components/InvocationProgress';
import { McpCallQuestion } from '../mcp-server/McpQuestionPrompt';
import { chatStrings as s } from '../../i18n/chat-strings';
import { scriptStrings } from '../../i18n/script-strings';
import { v7 as uuidv7 } from 'uuid';
import { ArgsForm } from '../tools/tester/ArgsForm';
import { initialValue, isPlainObject } from '../tools/tester/schema-form';
import { useArgIssues } from '../tools/tester/use-arg-issues';
import { ScriptTrust } from '../tools/script/ScriptTrust';
import { formatDuration } from './format';
import { routeDefaultsFor } from './route-defaults';
import { addMessages, useEnsureConversation } from './use-conversation';

export interface PaletteRunFormProps {
  tool: ToolView;
  /** The composer's `@tools` entries (aggregated), for the default output. */
  composerTools: readonly AggregatedTool[];
  /** The run answered with its card. */
  onRan: (message: Message) => void;
  /** Back to the composer, nothing run. */
  onClose: () => void;
  /** Arguments to start from (an earlier run's, "Edit and run again"); default: the schema's. */
  initialArgs?: unknown;
}

interface RunValues {
  args: unknown;
  output: string;
  writeMode: WriteMode;
}

/** The output's check: empty is "the chat", else a destination as the directives write it. */
function outputProblem(text: string): string | undefined {
  const parsed = text.trim() === '' ? null : parseDestination(text.trim());
  return parsed && !parsed.ok ? parsed.message : undefined;
}

type RunState = { status: 'idle' } | { status: 'running'; startedAt: number; invocationId: string } | { status: 'failed'; error: ErrorInfo };

const newInvocationId = (): string => (typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : uuidv7());

export function PaletteRunForm({ tool, composerTools, onRan, onClose, initialArgs }: PaletteRunFormProps) {
  const { client } = useApi();
  const qc = useQueryClient();
  const ensureConversation = useEnsureConversation();
  const ids = useId();
  const schema = isPlainObject(tool.argSchema) ? tool.argSchema : {};
  const bundle = useOp('bundles.get', { bundleId: tool.bundleId });
  const defaults = routeDefaultsFor(composerTools, tool.slug, bundle.data?.slug);
  const { register, handleSubmit, watch, setValue, resetField, getFieldState, formState } = useForm<RunValues>({
    defaultValues: { args: initialArgs ?? initialValue(schema, schema) ?? {}, output: defaults.output, writeMode: defaults.writeMode },
    mode: 'onChange',
  });
  // Until the user edits them, the output and the write mode follow the composer's @tools lines.
  useEffect(() => {
    if (!getFieldState('output').isDirty) resetField('output', { defaultValue: defaults.output });
    if (!getFieldState('writeMode').isDirty) resetField('writeMode', { defaultValue: defaults.writeMode });
  }, [defaults.output, defaults.writeMode, getFieldState, resetField]);
  const args = watch('args');
  const output = watch('output');
  const outputDirty = formState.dirtyFields.output === true;
  const setArgs = useCallback((next: unknown) => setValue('args', next, { shouldDirty: true }), [setValue]);
  const [argsValid, setArgsValid] = useState(true);
  const { issues, checkNow } = useArgIssues(schema, args);
  /** The user tried to run: missing required fields are shown too. */
  const [tried, setTried] = useState(false);
  const parsedOutput = output.trim() === '' ? null : parseDestination(output.trim());
  const outputError = formState.errors.output?.message ?? null;
  const routed = parsedOutput?.ok === true && (parsedOutput.destination.kind === 'variable' || parsedOutput.destination.kind === 'file');

  const [run, setRun] = useState<RunState>({ status: 'idle' });
  const [cancelling, setCancelling] = useState(false);
  const inFlight = useRef<string | null>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const running = run.status === 'running';
  const canRun = argsValid && outputError === null && !running;
  // A script from outside the app asks before its first run: its source is shown with "Trust and run".
  const approval = useOp('tools.approval', { bundleId: tool.bundleId, slug: tool.slug, version: tool.version }, { enabled: tool.type === 'script' });
  const untrusted = tool.type === 'script' && approval.data?.reason.kind === 'script';

  const start = (opts: { trusted?: boolean } = {}) => {
    if (!canRun || inFlight.current || (untrusted && !opts.trusted)) return;
    void handleSubmit((values) => runWith(values))();
  };
  const runWith = async ({ args, output, writeMode }: RunValues) => {
    setTried(true);
    // What the core would refuse is shown on the fields instead of being sent.
    const found = await checkNow();
    if (found.length > 0) {
      requestAnimationFrame(() => rootRef.current?.querySelector<HTMLElement>('.args-form [aria-invalid="true"]')?.focus());
      return;
    }
    if (inFlight.current) return;
    const invocationId = newInvocationId();
    inFlight.current = invocationId;
    setCancelling(false);
    setRun({ status: 'running', startedAt: performance.now(), invocationId });
    let conversationId = '';
    let r: Result<Message>;
    try {
      conversationId = await ensureConversation();
      r = await client.call('chat.runTool', {
        conversationId,
        bundleId: tool.bundleId,
        slug: tool.slug,
        version: tool.version,
        args,
        ...(output.trim() !== '' ? { output: output.trim(), writeMode } : {}),
        invocationId,
      });
    } catch (e) {
      r = { ok: false, error: { code: 'UNAVAILABLE', message: (e as Error).message } };
    }
    if (inFlight.current !== invocationId) return;
    inFlight.current = null;
    if (r.ok) addMessages(qc, conversationId, [r.value]);
    if (!mounted.current) return;
    setCancelling(false);
    if (r.ok) onRan(r.value);
    else setRun({ status: 'failed', error: r.error });
  };

  const cancel = async () => {
    const invocationId = inFlight.current;
    if (!invocationId) return;
    setCancelling(true);
    // The run's own answer ends it; this only asks.
    await client.call('invocations.cancel', { invocationId }).catch(() => undefined);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const target = e.target as HTMLElement;
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      if (inFlight.current) void cancel();
      else onClose();
      return;
    }
    if (e.key !== 'Enter' || e.shiftKey || e.nativeEvent.isComposing) return;
    const field = target.tagName === 'SELECT' || (target.tagName === 'INPUT' && !['checkbox', 'radio', 'button', 'submit'].includes((target as HTMLInputElement).type));
    if (e.ctrlKey || e.metaKey || field) {
      e.preventDefault();
      start();
    }
  };

  const onValidity = useCallback((valid: boolean) => setArgsValid(valid), []);

  // Focus lands on the first field (or Run, for a tool without arguments).
  const rootRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const first = rootRef.current?.querySelector<HTMLElement>('.args-form input, .args-form textarea, .args-form select');
    (first ?? rootRef.current?.querySelector<HTMLElement>('[data-testid="palette-run"]'))?.focus();
  }, []);

  const outputHelpId = `${ids}-output-help`;
  const outputErrorId = `${ids}-output-error`;
  return (
    <div ref={rootRef} className="palette-form" data-testid="palette-form" onKeyDown={onKeyDown}>
      <header className="palette-form-head">
        <h2 id={`${ids}-title`}>
          {tool.displayName} <code className="muted">+{tool.slug}</code>
        </h2>
        <button type="button" className="icon-button" aria-label={s.palette.close} title={s.palette.close} disabled={running} onClick={onClose}>
          ✕
        </button>
      </header>
      {tool.description && <p className="palette-form-desc">{tool.description}</p>}
      <ArgsForm schema={schema} value={args} onChange={setArgs} onValidityChange={onValidity} issues={issues} showMissing={tried} onSubmit={() => start()} />
      <div className="palette-route">
        <div className="palette-output">
          <label htmlFor={`${ids}-output`}>{s.palette.output}</label>
          <input
            id={`${ids}-output`}
            type="text"
            spellCheck={false}
            autoComplete="off"
            placeholder={s.palette.outputPlaceholder}
            aria-invalid={outputError !== null}
            aria-describedby={outputError ? `${outputErrorId} ${outputHelpId}` : outputHelpId}
            data-testid="palette-output"
            {...register('output', { validate: (text) => outputProblem(text) ?? true })}
          />
        </div>
        <div className="palette-write-mode">
          <label htmlFor={`${ids}-mode`}>{s.palette.writeMode}</label>
          <select id={`${ids}-mode`} disabled={!routed} title={s.palette.writeModeHelp} data-testid="palette-write-mode" {...register('writeMode')}>
            {WriteModeSchema.options.map((m) => (
              <option key={m} value={m}>
                {s.palette.writeModes[m]}
              </option>
            ))}
          </select>
        </div>
        {outputError && (
          <FieldError role="alert" id={outputErrorId}>
            {outputError}
          </FieldError>
        )}
        <p className="help" id={outputHelpId}>
          {!outputDirty && defaults.output ? s.palette.outputFromTools(defaults.output) : s.palette.outputHelp}
        </p>
      </div>
      <div className="form-actions palette-actions">
        <button
          type="button"
          className="primary"
          data-testid="palette-run"
          aria-keyshortcuts="Enter Control+Enter Meta+Enter"
          disabled={!canRun || untrusted}
          aria-describedby={untrusted ? `${ids}-untrusted` : undefined}
          onClick={() => start()}
        >
          {running ? s.palette.running : s.palette.run}
        </button>
        {running && (
          <button type="button" data-testid="palette-cancel" aria-keyshortcuts="Escape" disabled={cancelling} onClick={() => void cancel()}>
            {cancelling ? s.palette.cancelling : s.palette.cancel}
          </button>
        )}
        {run.status === 'running' && <Elapsed since={run.startedAt} />}
        {untrusted && (
          <span className="help" id={`${ids}-untrusted`}>
            {scriptStrings.trust.runBlocked}
          </span>
        )}
        {!argsValid && <FieldError as="span">{s.palette.argsInvalid}</FieldError>}
        {argsValid && outputError && <FieldError as="span">{s.palette.outputInvalid}</FieldError>}
        {argsValid && !outputError && tried && issues.length > 0 && <FieldError as="span">{s.palette.argsInvalid}</FieldError>}
      </div>
      {run.status === 'running' && (
        // The tool's own progress once it reports some; until then, a bar that only says it runs.
        <InvocationProgress
          invocationId={run.invocationId}
          label={s.palette.progress(tool.displayName)}
          fallback={<div className="progress-bar" role="progressbar" aria-label={s.palette.running} aria-busy="true" data-testid="palette-progress" />}
        />
      )}
      {untrusted && run.status !== 'running' && <ScriptTrust tool={tool} name={tool.displayName} onTrusted={() => start({ trusted: true })} />}
      {/* A question of the server whose tool runs: here, under its run. */}
      {run.status === 'running' && <McpCallQuestion invocationId={run.invocationId} />}
      {run.status === 'failed' && (
        <div className="result-error" role="alert" data-testid="palette-error">
          <p>
            {s.palette.runFailed} <code className="error-code">{run.error.code}</code> {run.error.message}
          </p>
        </div>
      )}
      <p className="help">{s.palette.formHelp}</p>
    </div>
  );
}

/** Time since the run started, ticking on its own so the form does not re-render. */
function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(() => performance.now());
  useEffect(() => {
    const id = setInterval(() => setNow(performance.now()), 200);
    return () => clearInterval(id);
  }, []);
  return (
    <span className="muted" role="status" aria-live="off" data-testid="palette-elapsed">
      {s.palette.elapsed(formatDuration(now - since))}
    </span>
  );
}
