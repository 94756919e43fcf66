/**
 * A tool's value, pretty-printed: a string as it is; an object key by key, its text fields
 * with their line breaks and anything else as indented JSON. A long value is shown folded
 * (its first lines) with a button to unfold it. A value that is content (an MCP result's parts,
 * an HTTP tool's image) is shown part by part (ResultParts), the JSON a toggle away.
 */
import { useId, useMemo, useState } from 'react';
import { resultParts } from '../../../shared/model/result-content';
import { ResultParts } from '../../components/ResultParts';
import { chatStrings as s } from '../../i18n/chat-strings';
import { resultStrings } from '../../i18n/result-strings';
import { isLongText, valueText } from './format';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function ValueView({ value, truncated, toolName, bundleId }: { value: unknown; truncated?: boolean; toolName?: string; bundleId?: string }) {
  const parts = useMemo(() => resultParts(value), [value]);
  if (parts) return <ResultParts parts={parts} toolName={toolName ?? resultStrings.theTool} bundleId={bundleId} testId="tool-value" raw={() => <PlainValue value={value} truncated={truncated} testId="tool-value-raw" />} />;
  return <PlainValue value={value} truncated={truncated} testId="tool-value" />;
}

function PlainValue({ value, truncated, testId }: { value: unknown; truncated?: boolean | undefined; testId: string }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const total = valueText(value);
  const long = isLongText(total);
  const folded = long && !open;
  return (
    <div className="value-view">
      <div id={id} className={folded ? 'value-body folded' : 'value-body'} data-testid={testId}>
        {value === undefined ? <p className="muted">{s.card.noValue}</p> : isRecord(value) ? <Fields value={value} /> : <pre>{total}</pre>}
      </div>
      {long && (
        <button type="button" className="link-button" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)}>
          {open ? s.card.showLess : s.card.showAll(total.length)}
        </button>
      )}
      {truncated && (
        <p className="help value-truncated" data-testid="value-truncated">
          {s.card.truncated}
        </p>
      )}
    </div>
  );
}

function Fields({ value }: { value: Record<string, unknown> }) {
  const entries = Object.entries(value);
  if (entries.length === 0) return <pre>{'{}'}</pre>;
  return (
    <dl className="value-fields">
      {entries.map(([k, v]) => {
        const multiline = typeof v === 'string' && v.includes('\n');
        return (
          <div key={k} className={multiline ? 'value-field block' : 'value-field'}>
            <dt>{k}</dt>
            <dd>
              <FieldValue value={v} multiline={multiline} />
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

function FieldValue({ value, multiline }: { value: unknown; multiline: boolean }) {
  if (typeof value === 'string') return multiline ? <pre>{value}</pre> : <code className="json-string">{JSON.stringify(value)}</code>;
  return <pre className={jsonClass(value)}>{valueText(value)}</pre>;
}

function jsonClass(v: unknown): string {
  if (v === null) return 'json-null';
  return typeof v === 'number' || typeof v === 'boolean' ? 'json-number' : '';
}
