/**
 * A question an MCP server asks the user in the middle of a call (elicitation): the server (and
 * its tool), its message, and either a form (fields from the restricted schema, defaults filled
 * in) or a page to open in the browser. Send, Decline and Cancel answer it; an answer that does
 * not fit its form is refused by the core with why, shown here, and the question keeps waiting.
 *
 * Where it shows: in the card of the call that asks (the chat's tool card, the tester's result)
 * while that card is on screen (McpCallQuestion), else in a prompt on every screen while this
 * window is open (McpQuestionPrompt).
 */
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { elicitationDefaults, type ElicitationRequest, type ElicitField, type ElicitValue } from '../../../shared/model/elicitation';
import { useOp, useOpMutation } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { mcpClientStrings } from '../../i18n/mcp-client-strings';
import '../settings/mcp-server.css';

const q = mcpClientStrings.question;

/** The calls whose card is on screen (counted: a call may show in two places at once). */
const shown = new Map<string, number>();
const listeners = new Set<() => void>();
let version = 0;
const changed = () => {
  version++;
  listeners.forEach((l) => l());
};
const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => void listeners.delete(l);
};

function inCard(request: ElicitationRequest): boolean {
  return request.invocationId !== undefined && (shown.get(request.invocationId) ?? 0) > 0;
}

export function McpQuestionPrompt() {
  const waiting = useOp('mcpElicitations.list', {});
  useSyncExternalStore(subscribe, () => version);
  const open = (waiting.data ?? []).filter((r) => !inCard(r));
  const first = open[0];
  if (!first) return null;
  // Keyed by the question: a new one starts from its own defaults.
  return <Question key={first.id} request={first} more={open.length - 1} onAnswered={() => void waiting.refetch()} />;
}

/** The question of one running call, in its card; while it is mounted, the prompt leaves that call's questions to it. */
export function McpCallQuestion({ invocationId }: { invocationId: string }) {
  useEffect(() => {
    shown.set(invocationId, (shown.get(invocationId) ?? 0) + 1);
    changed();
    return () => {
      const n = (shown.get(invocationId) ?? 1) - 1;
      if (n > 0) shown.set(invocationId, n);
      else shown.delete(invocationId);
      changed();
    };
  }, [invocationId]);
  const waiting = useOp('mcpElicitations.list', {});
  const mine = (waiting.data ?? []).filter((r) => r.invocationId === invocationId);
  const first = mine[0];
  if (!first) return null;
  return <Question key={first.id} request={first} more={mine.length - 1} inCard onAnswered={() => void waiting.refetch()} />;
}

function Question({ request, more, inCard: inOwnCard, onAnswered }: { request: ElicitationRequest; more: number; inCard?: boolean; onAnswered: () => void }) {
  const respond = useOpMutation('mcpElicitations.respond');
  const [values, setValues] = useState<Record<string, ElicitValue>>(() => elicitationDefaults(request.fields ?? []));
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const answer = (action: 'accept' | 'decline' | 'cancel') =>
    respond.mutate({ id: request.id, action, ...(action === 'accept' && request.mode === 'form' ? { content: values } : {}) }, { onSuccess: onAnswered });
  const titleId = `mcp-question-title-${request.id}`;
  const messageId = `mcp-question-message-${request.id}`;
  return (
    <section
      className={inOwnCard ? 'mcp-approval mcp-question-in-card' : 'mcp-approval'}
      role="alertdialog"
      aria-labelledby={titleId}
      aria-describedby={messageId}
      data-testid="mcp-question"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          // The question's Escape only: not also the tester's or the palette's (which cancel the run).
          e.preventDefault();
          e.stopPropagation();
          answer('cancel');
        }
      }}
    >
      <h2 id={titleId} ref={heading} tabIndex={-1}>
        {q.title}
      </h2>
      <p id={messageId}>
        {/* The server's words are its own: React renders them as text. */}
        {q.from(request.server, request.tool)} {request.message}
      </p>
      {request.mode === 'url' && request.url ? (
        <p>
          {q.urlIntro} <strong data-testid="mcp-question-host">{new URL(request.url).host}</strong> <code className="mcp-question-url">{request.url}</code>{' '}
          <a href={request.url} target="_blank" rel="noopener noreferrer" data-testid="mcp-question-open">
            {q.open}
          </a>
        </p>
      ) : (
        <form
          id={`mcp-question-form-${request.id}`}
          className="mcp-question-form"
          // The core checks the answer and says what does not fit, here, in the app's words.
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            answer('accept');
          }}
        >
          {(request.fields ?? []).map((f) => (
            <Field key={f.name} field={f} value={values[f.name]} onChange={(v) => setValues((old) => ({ ...old, [f.name]: v }))} />
          ))}
        </form>
      )}
      {respond.error && (
        <FieldError role="alert" data-testid="mcp-question-error">
          {respond.error.message}
        </FieldError>
      )}
      <p className="muted">{q.expires(new Date(request.expiresAt).toLocaleTimeString())}</p>
      <div className="form-actions">
        {request.mode === 'form' ? (
          <button type="submit" form={`mcp-question-form-${request.id}`} className="primary" disabled={respond.isPending} data-testid="mcp-question-send">
            {q.submit}
          </button>
        ) : (
          <button type="button" className="primary" disabled={respond.isPending} data-testid="mcp-question-done" onClick={() => answer('accept')}>
            {q.done}
          </button>
        )}
        <button type="button" disabled={respond.isPending} data-testid="mcp-question-decline" onClick={() => answer('decline')}>
          {q.decline}
        </button>
        <button type="button" disabled={respond.isPending} data-testid="mcp-question-cancel" onClick={() => answer('cancel')}>
          {q.cancel}
        </button>
        {more > 0 && <span className="muted">{q.more(more)}</span>}
      </div>
    </section>
  );
}

const INPUT_TYPE: Record<string, string> = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };

function Field({ field: f, value, onChange }: { field: ElicitField; value: ElicitValue | undefined; onChange: (v: ElicitValue) => void }) {
  const id = `mcp-q-${f.name}`;
  const help = f.description ? `${id}-help` : undefined;
  const label = (
    <>
      {f.title ?? f.name}
      {f.required && <span className="muted"> ({q.required})</span>}
    </>
  );
  const description = f.description ? (
    <small id={help} className="muted">
      {f.description}
    </small>
  ) : null;
  switch (f.kind) {
    case 'boolean':
      return (
        <div className="field">
          <label>
            <input type="checkbox" checked={value === true} aria-describedby={help} onChange={(e) => onChange(e.target.checked)} /> {label}
          </label>
          {description}
        </div>
      );
    case 'enum':
      return (
        <div className="field">
          <label htmlFor={id}>{label}</label>
          <select id={id} value={typeof value === 'string' ? value : ''} required={f.required} aria-describedby={help} onChange={(e) => onChange(e.target.value)}>
            {!f.required && <option value="">{q.noneChosen}</option>}
            {f.required && value === undefined && <option value="" disabled />}
            {f.options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
          {description}
        </div>
      );
    case 'multi': {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <fieldset className="field" aria-describedby={help}>
          <legend>{label}</legend>
          {f.options.map((o) => (
            <label key={o.value}>
              <input type="checkbox" checked={chosen.includes(o.value)} onChange={(e) => onChange(e.target.checked ? [...chosen, o.value] : chosen.filter((c) => c !== o.value))} /> {o.label}
            </label>
          ))}
          {description}
        </fieldset>
      );
    }
    case 'number':
      return (
        <div className="field">
          <label htmlFor={id}>{label}</label>
          <input
            id={id}
            type="number"
            step={f.integer ? 1 : 'any'}
            min={f.minimum}
            max={f.maximum}
            required={f.required}
            aria-describedby={help}
            value={typeof value === 'number' ? value : ''}
            onChange={(e) => onChange(e.target.value === '' ? '' : Number(e.target.value))}
          />
          {description}
        </div>
      );
    case 'string':
      return (
        <div className="field">
          <label htmlFor={id}>{label}</label>
          <input
            id={id}
            type={f.format ? INPUT_TYPE[f.format] : 'text'}
            minLength={f.minLength}
            maxLength={f.maxLength}
            required={f.required}
            aria-describedby={help}
            value={typeof value === 'string' ? (f.format === 'date-time' ? localInput(value) : value) : ''}
            // A date and time goes to the server in RFC 3339 (with its zone), as servers check it.
            onChange={(e) => onChange(f.format === 'date-time' && e.target.value ? new Date(e.target.value).toISOString() : e.target.value)}
          />
          {description}
        </div>
      );
  }
}

/** An RFC 3339 time as a datetime-local input shows it (this machine's time). */
function localInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
