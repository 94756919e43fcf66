/**
 * What a run produced (while it runs, its progress once it reports some): the value as a collapsible tree with a Copy button
 * (a value that is content, part by part: images, sounds, resources, links; the tree a toggle away), or the error
 * with the args/output issues by path and, for a secret or host that is missing, the button that opens Settings to fix it; duration and attempts; and for HTTP tools the
 * exchange (secrets are redacted by the core before anything reaches us).
 */
import { useId, useMemo, useState } from 'react';
import { z } from 'zod';
import type { InvokeResult } from '../../../../shared/contract';
import type { ErrorInfo } from '../../../../shared/errors';
import { HttpExchangeSchema, type HttpExchange } from '../../../../shared/model/invocation';
import { resultParts } from '../../../../shared/model/result-content';
import { ResultParts } from '../../../components/ResultParts';
import { testerStrings as s } from '../../../i18n/tester-strings';
import { InvocationProgress } from '../../../components/InvocationProgress';
import { FixItAction } from '../../../components/FixItAction';
import { contentTypeOf, prettyBody } from './http-body';

export type RunState =
  | { status: 'idle' }
  | { status: 'running'; invocationId: string }
  | { status: 'done'; result: InvokeResult }
  | { status: 'failed'; error: ErrorInfo };

/** What the core puts in a failed call's details (invoke-handlers.ts `answer`). */
const FailureDetailsSchema = z
  .object({
    phase: z.string().optional(),
    issues: z.array(z.object({ path: z.string(), message: z.string() }).passthrough()).optional(),
    durationMs: z.number().optional(),
    attempts: z.number().optional(),
    http: HttpExchangeSchema.optional(),
  })
  .passthrough();

/** `toolName` names the images and sounds of a result that is content. */
export function ResultView({ state, toolName, bundleId }: { state: RunState; toolName: string; bundleId?: string }) {
  const titleId = useId();
  return (
    <section className="tester-result" data-testid="tester-result" aria-labelledby={titleId} aria-busy={state.status === 'running'}>
      <h3 id={titleId}>{s.result.title}</h3>
      {state.status === 'idle' && <p className="muted">{s.result.none}</p>}
      {state.status === 'running' && (
        <>
          <p className="muted" role="status">
            {s.result.running}
          </p>
          <InvocationProgress invocationId={state.invocationId} label={s.result.progress} />
        </>
      )}
      {state.status === 'done' && <Success result={state.result} toolName={toolName} bundleId={bundleId} />}
      {state.status === 'failed' && <Failure error={state.error} />}
    </section>
  );
}

function Timing({ durationMs, attempts, ok }: { durationMs?: number; attempts?: number; ok: boolean }) {
  return (
    <div className="result-timing">
      <span className={ok ? 'badge ok' : 'badge danger'}>{ok ? s.result.ok : s.result.failed}</span>
      {durationMs !== undefined && (
        <span>
          {s.result.duration}: <strong data-testid="tester-duration">{s.result.ms(durationMs)}</strong>
        </span>
      )}
      {attempts !== undefined && (
        <span>
          {s.result.attempts}: <strong data-testid="tester-attempts">{attempts}</strong>
        </span>
      )}
    </div>
  );
}

function Success({ result, toolName, bundleId }: { result: InvokeResult; toolName: string; bundleId?: string | undefined }) {
  const parts = useMemo(() => resultParts(result.value), [result.value]);
  const tree = (testId: string) => (
    <div className="json-tree" data-testid={testId}>
      <JsonNode value={result.value} depth={0} />
    </div>
  );
  return (
    <>
      <p className="visually-hidden" role="status">
        {s.result.finished(s.result.ms(result.durationMs))}
      </p>
      <Timing ok durationMs={result.durationMs} attempts={result.attempts} />
      <div className="result-value-head">
        <h4>{s.result.value}</h4>
        <CopyButton value={result.value} />
      </div>
      {parts ? <ResultParts parts={parts} toolName={toolName} bundleId={bundleId} testId="tester-value" raw={() => tree('tester-value-raw')} /> : tree('tester-value')}
      {result.http && <HttpView http={result.http} />}
    </>
  );
}

function Failure({ error }: { error: ErrorInfo }) {
  const parsed = FailureDetailsSchema.safeParse(error.details ?? {});
  const d = parsed.success ? parsed.data : {};
  const heading = d.phase === 'args' ? s.result.issues.args : d.phase === 'output' ? s.result.issues.output : d.phase === 'draft' ? s.result.issues.draft : s.result.issues.other;
  return (
    <>
      <div className="result-error" role="alert" data-testid="tester-error">
        <p>
          <code className="error-code">{error.code}</code> {error.message}
        </p>
        <FixItAction error={error} />
        {d.issues && d.issues.length > 0 && (
          <>
            <p>{heading}</p>
            <ul className="issue-list" data-testid="tester-issues">
              {d.issues.map((i, k) => (
                <li key={k}>
                  <code>{i.path || '(root)'}</code> {i.message}
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
      <Timing ok={false} durationMs={d.durationMs} attempts={d.attempts} />
      {d.http && <HttpView http={d.http} />}
    </>
  );
}

function CopyButton({ value }: { value: unknown }) {
  const [status, setStatus] = useState<'copied' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value === undefined ? '' : JSON.stringify(value, null, 2));
      setStatus('copied');
    } catch {
      setStatus('failed');
    }
  };
  return (
    <span className="copy">
      <button type="button" data-testid="tester-copy" onClick={() => void copy()}>
        {s.result.copy}
      </button>
      <span role="status" className={status === 'failed' ? 'field-error' : 'status-ok'}>
        {status === 'copied' ? s.result.copied : status === 'failed' ? s.result.copyFailed : ''}
      </span>
    </span>
  );
}

const PAGE = 100;
const MAX_LEAF_CHARS = 5000;

/** One node of the value: a leaf, or a <details> whose children are rendered only while open. */
function JsonNode({ name, value, depth }: { name?: string; value: unknown; depth: number }) {
  const [open, setOpen] = useState(depth < 2);
  const [shown, setShown] = useState(PAGE);
  const key = name !== undefined && <span className="json-key">{name}: </span>;
  if (value === null || typeof value !== 'object') {
    return (
      <div className="json-leaf">
        {key}
        <Leaf value={value} />
      </div>
    );
  }
  const isArray = Array.isArray(value);
  const entries: [string, unknown][] = isArray ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const count = isArray ? s.result.items(entries.length) : s.result.keys(entries.length);
  if (entries.length === 0) {
    return (
      <div className="json-leaf">
        {key}
        <span className="json-punct">{isArray ? '[]' : '{}'}</span>
      </div>
    );
  }
  return (
    <details className="json-node" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        {key}
        <span className="json-punct">{isArray ? '[' : '{'}</span>
        <span className="muted"> {count} </span>
        <span className="json-punct">{isArray ? ']' : '}'}</span>
      </summary>
      {open && (
        <div className="json-children">
          {entries.slice(0, shown).map(([k, v]) => (
            <JsonNode key={k} name={k} value={v} depth={depth + 1} />
          ))}
          {entries.length > shown && (
            <button type="button" className="link-button" onClick={() => setShown((n) => n + PAGE)}>
              {s.result.showMore(Math.min(PAGE, entries.length - shown))}
            </button>
          )}
        </div>
      )}
    </details>
  );
}

function Leaf({ value }: { value: unknown }) {
  if (value === undefined) return <span className="muted">{s.result.undefinedValue}</span>;
  const text = JSON.stringify(value);
  const kind = value === null ? 'null' : typeof value;
  if (text.length <= MAX_LEAF_CHARS) return <span className={`json-${kind}`}>{text}</span>;
  return (
    <span className={`json-${kind}`}>
      {text.slice(0, MAX_LEAF_CHARS)}
      <span className="muted">{s.result.moreChars(text.length - MAX_LEAF_CHARS)}</span>
    </span>
  );
}

const MAX_BODY_CHARS = 64 * 1024;

function HttpView({ http }: { http: HttpExchange }) {
  const titleId = useId();
  const body = useMemo(() => prettyBody(http.bodyText ?? '', contentTypeOf(http.responseHeaders)), [http.bodyText, http.responseHeaders]);
  return (
    <section className="http-view" data-testid="tester-http" aria-labelledby={titleId}>
      <h4 id={titleId}>{s.http.title}</h4>
      <dl className="result-meta">
        <dt>{s.http.method}</dt>
        <dd data-testid="tester-http-method">{http.method}</dd>
        <dt>{s.http.url}</dt>
        <dd data-testid="tester-http-url" className="break">
          {http.url}
        </dd>
        {http.status !== undefined && (
          <>
            <dt>{s.http.status}</dt>
            <dd data-testid="tester-http-status">{http.status}</dd>
          </>
        )}
        {http.sizeBytes !== undefined && (
          <>
            <dt>{s.http.size}</dt>
            <dd>{s.http.bytes(http.sizeBytes)}</dd>
          </>
        )}
        {http.durationMs !== undefined && (
          <>
            <dt>{s.http.duration}</dt>
            <dd>{s.result.ms(http.durationMs)}</dd>
          </>
        )}
      </dl>
      <Headers title={s.http.requestHeaders} headers={http.requestHeaders} testId="tester-http-request-headers" />
      <Headers title={s.http.responseHeaders} headers={http.responseHeaders} testId="tester-http-response-headers" />
      <details className="http-body">
        <summary>{s.http.body}</summary>
        {body ? (
          <pre data-testid="tester-http-body">
            {body.slice(0, MAX_BODY_CHARS)}
            {body.length > MAX_BODY_CHARS && <span className="muted">{s.result.moreChars(body.length - MAX_BODY_CHARS)}</span>}
          </pre>
        ) : (
          <p className="muted">{s.http.noBody}</p>
        )}
      </details>
    </section>
  );
}

function Headers({ title, headers, testId }: { title: string; headers: Record<string, string>; testId: string }) {
  const entries = Object.entries(headers);
  return (
    <details className="http-headers" data-testid={testId}>
      <summary>
        {title} <span className="muted">({entries.length})</span>
      </summary>
      {entries.length === 0 ? (
        <p className="muted">{s.http.noHeaders}</p>
      ) : (
        <table>
          <tbody>
            {entries.map(([k, v]) => (
              <tr key={k}>
                <th scope="row">{k}</th>
                <td className="break">{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </details>
  );
}
