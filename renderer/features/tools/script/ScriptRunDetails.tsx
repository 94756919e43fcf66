/**
 * Under a script tool's result in the tester: what a failure means and what to do (by its code,
 * with the stack of a script that threw), the review of a script that is not trusted yet (a
 * saved tool from outside the app), and the script's log lines — live while it runs (events
 * `invocation.event` of kind `log`), then the ones its answer carries (the result's `logs`, or
 * the error's `details.logs`).
 *
 *   <ScriptRunDetails run={run} tool={{ bundleId, slug, version }} name={slug} onTrusted={() => void start()} />
 */
import { useEffect, useId, useState } from 'react';
import type { ScriptLogLine } from '../../../../shared/model/script-tool';
import { useApi } from '../../../api/hooks';
import { scriptStrings } from '../../../i18n/script-strings';
import type { RunState } from '../tester/ResultView';
import { appendLine, finalLogs, isNotTrusted, liveLogLine, scriptErrorHelp } from './script-draft';
import { ScriptTrust, type ScriptToolRef } from './ScriptTrust';
import './script.css';

export interface ScriptRunDetailsProps {
  run: RunState;
  tool: ScriptToolRef;
  name: string;
  /** The saved tool was trusted from here: run it again. Absent for a draft (a draft never asks). */
  onTrusted?(): void;
}

export function ScriptRunDetails({ run, tool, name, onTrusted }: ScriptRunDetailsProps) {
  const logs = useRunLogs(run);
  const failed = run.status === 'failed' ? run.error : null;
  const help = failed ? scriptErrorHelp(failed) : null;
  return (
    <>
      {help && <ScriptErrorHelpView help={help} />}
      {failed && isNotTrusted(failed) && onTrusted && <ScriptTrust tool={tool} name={name} onTrusted={onTrusted} />}
      {logs.lines.length > 0 && <ScriptLogs lines={logs.lines} live={logs.live} />}
    </>
  );
}

/** The lines of the run shown: live while it runs, then the answer's (or, without any, the live ones). */
export function useRunLogs(run: RunState): { lines: ScriptLogLine[]; live: boolean } {
  const { client } = useApi();
  const runningId = run.status === 'running' ? run.invocationId : null;
  // The last run started here: its live lines stay until the next one starts.
  const [lastId, setLastId] = useState<string | null>(null);
  if (runningId && runningId !== lastId) setLastId(runningId);
  const [live, setLive] = useState<{ id: string; lines: ScriptLogLine[] } | null>(null);
  useEffect(() => {
    if (!runningId) return;
    return client.on('invocation.event', (e) => {
      const line = liveLogLine(e, runningId);
      if (line) setLive((prev) => ({ id: runningId, lines: appendLine(prev?.id === runningId ? prev.lines : [], line) }));
    });
  }, [client, runningId]);
  const liveLines = live && live.id === lastId ? live.lines : [];
  if (run.status === 'running') return { lines: liveLines, live: true };
  const answered = run.status === 'done' ? finalLogs({ result: run.result }) : run.status === 'failed' ? finalLogs({ error: run.error }) : undefined;
  return { lines: answered ?? (run.status === 'idle' ? [] : liveLines), live: false };
}

export function ScriptLogs({ lines, live }: { lines: readonly ScriptLogLine[]; live: boolean }) {
  const titleId = useId();
  return (
    <section className="script-logs" aria-labelledby={titleId} data-testid="script-logs">
      <h4 id={titleId}>
        {live ? scriptStrings.logs.live : scriptStrings.logs.title} <span className="muted small">({scriptStrings.logs.count(lines.length)})</span>
      </h4>
      {/* Focusable so that a keyboard can scroll it; a log: new lines are read out while it runs. */}
      <div className="script-log-lines" role="log" aria-labelledby={titleId} tabIndex={0} data-testid="script-log-lines">
        <ol>
          {lines.map((l, i) => (
            <li key={i} className={`script-log-line ${l.level}`} data-level={l.level}>
              <span className="script-log-at">{scriptStrings.logs.at(Math.round(l.atMs))}</span>
              <span className="script-log-level">{scriptStrings.logs.levels[l.level]}</span>
              <span className="script-log-text">{l.text}</span>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}

function ScriptErrorHelpView({ help }: { help: NonNullable<ReturnType<typeof scriptErrorHelp>> }) {
  return (
    <div className="script-error-help" data-testid="script-error-help">
      <p>
        <strong>{help.title}</strong>
        {help.fix && <> {help.fix}</>}
      </p>
      {help.stack && (
        <details open>
          <summary>{scriptStrings.errors.stack}</summary>
          <pre className="script-stack" tabIndex={0} data-testid="script-error-stack">
            {help.stack}
          </pre>
        </details>
      )}
    </div>
  );
}
