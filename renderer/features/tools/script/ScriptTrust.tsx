/**
 * A script tool that came from outside the app (an imported bundle, the drop-in folder) asks
 * before its first run: its source, read-only, and "Trust and run" (tools.trustScript with the
 * SHA-256 that came with the source shown, then the caller runs it; the button waits until the
 * source has loaded without a problem). The tester shows it when a run is refused (FORBIDDEN
 * `script-not-trusted`), the palette's run form when tools.approval says `script`; the chat's
 * approval card shows only the source (allowing the call trusts it).
 *
 *   <ScriptTrust tool={{ bundleId, slug, version }} name={displayName} onTrusted={() => run()} />
 *   <ScriptSourceView tool={{ bundleId, slug, version }} name={displayName} />
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useOp, useOpMutation } from '../../../api/hooks';
import { invalidateWhere } from '../../../api/invalidation';
import { FieldError } from '../../../components/Field';
import { scriptStrings } from '../../../i18n/script-strings';
import './script.css';

const s = scriptStrings.trust;

export interface ScriptToolRef {
  bundleId: string;
  slug: string;
  version: string;
}

/** A script's source as it is on disk, read-only, with its file's problem if it has one. */
export function ScriptSourceView({ tool, name }: { tool: ScriptToolRef; name: string }) {
  const source = useOp('tools.scriptSource', { bundleId: tool.bundleId, slug: tool.slug, version: tool.version });
  if (source.error) {
    return (
      <FieldError role="alert">{source.error.message}</FieldError>
    );
  }
  if (!source.data) {
    return (
      <p className="muted" role="status">
        {s.loading}
      </p>
    );
  }
  return (
    <>
      {source.data.problem && (
        <FieldError data-testid="script-review-problem">
          {s.fileProblem} {source.data.problem}
        </FieldError>
      )}
      {/* Focusable so that a keyboard can scroll it. */}
      <pre className="script-review-source" tabIndex={0} role="region" aria-label={s.sourceLabel(name)} data-testid="script-review-source">
        <code>{source.data.source}</code>
      </pre>
    </>
  );
}

export interface ScriptTrustProps {
  tool: ScriptToolRef;
  name: string;
  /** Trusted: the caller runs it now. */
  onTrusted(): void;
  /** "Not now": shown when given. */
  onDismiss?(): void;
}

export function ScriptTrust({ tool, name, onTrusted, onDismiss }: ScriptTrustProps) {
  const ids = useId();
  const qc = useQueryClient();
  const trust = useOpMutation('tools.trustScript');
  // The same query ScriptSourceView shows: what is trusted is the source on screen, by its SHA-256.
  const source = useOp('tools.scriptSource', { bundleId: tool.bundleId, slug: tool.slug, version: tool.version });
  const shown = source.data && !source.data.problem && !source.error ? source.data.sha256 : undefined;
  const onTrust = () => {
    if (shown === undefined) return;
    trust.mutate(
      { bundleId: tool.bundleId, slug: tool.slug, version: tool.version, sha256: shown },
      {
        onSuccess: () => {
          // Every tool with the same source is trusted now: what asked is read again.
          invalidateWhere(qc, 'tools.approval', () => true);
          onTrusted();
        },
      },
    );
  };
  return (
    <section className="script-review" aria-labelledby={`${ids}-title`} aria-describedby={`${ids}-help`} data-testid="script-trust">
      <h3 id={`${ids}-title`}>{s.title}</h3>
      <p id={`${ids}-help`} className="help">
        {s.help}
      </p>
      <ScriptSourceView tool={tool} name={name} />
      <div className="form-actions">
        <button type="button" className="primary" data-testid="script-trust-run" disabled={trust.isPending || shown === undefined} onClick={onTrust}>
          {trust.isPending ? s.trusting : s.trustAndRun}
        </button>
        {onDismiss && (
          <button type="button" data-testid="script-trust-dismiss" disabled={trust.isPending} onClick={onDismiss}>
            {s.notNow}
          </button>
        )}
      </div>
      {trust.error && (
        <FieldError role="alert" data-testid="script-trust-error">
          {s.failed} <code className="error-code">{trust.error.info.code}</code> {trust.error.message}
        </FieldError>
      )}
    </section>
  );
}

/** On the chat's approval card of a script that asks: its source, and what allowing the call does. */
export function ScriptApprovalSource({ tool, name }: { tool: ScriptToolRef; name: string }) {
  return (
    <div className="script-review" data-testid="approval-script">
      <p className="help">{s.chatNote}</p>
      <ScriptSourceView tool={tool} name={name} />
    </div>
  );
}
