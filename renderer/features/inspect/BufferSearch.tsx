/**
 * Search in a buffer ('buffers.search'): substring or regular expression, case toggle. Each
 * result shows its line with the match marked and the context lines around; clicking it
 * brings the line into view in the viewer. The core stops a runaway regex (TIMEOUT).
 */
import { useId, useState, type FormEvent } from 'react';
import type { OpInput } from '../../../shared/contract';
import type { BufferMatch } from '../../../shared/model/routing';
import { useOp } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { inspectStrings as s } from '../../i18n/inspect-strings';
import { useInspect } from './inspect-store';
import { drawnLine, matchSnippet } from './viewport';

const CONTEXT_LINES = 2;
const MAX_MATCHES = 200;
/** Context lines are cut to this many characters in the results. */
const CONTEXT_CHARS = 200;

type SearchInput = OpInput<'buffers.search'>;

export function BufferSearch({ ownerId, name }: { ownerId: string; name: string }) {
  const [query, setQuery] = useState('');
  const [regex, setRegex] = useState(false);
  const [caseSensitive, setCaseSensitive] = useState(false);
  const [params, setParams] = useState<SearchInput | null>(null);
  const titleId = useId();
  const inputId = useId();
  const result = useOp('buffers.search', params ?? { ownerId, name, query: ' ' }, { enabled: params !== null, retry: false, staleTime: Infinity });

  const run = (q: string, re: boolean, cs: boolean) =>
    setParams(q ? { ownerId, name, query: q, regex: re, caseSensitive: cs, contextLines: CONTEXT_LINES, maxMatches: MAX_MATCHES } : null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run(query, regex, caseSensitive);
  };
  // A toggle changed while results are shown searches again with it.
  const toggle = (re: boolean, cs: boolean) => {
    setRegex(re);
    setCaseSensitive(cs);
    if (params) run(params.query, re, cs);
  };

  const matches = params && result.data ? result.data.matches : null;
  return (
    <section className="buffer-search" aria-labelledby={titleId}>
      <h3 id={titleId}>{s.search.title}</h3>
      <form className="search-form" role="search" aria-labelledby={titleId} onSubmit={submit}>
        <label htmlFor={inputId} className="visually-hidden">
          {s.search.input}
        </label>
        <input id={inputId} data-testid="buffer-search-input" type="search" value={query} placeholder={s.search.placeholder} onChange={(e) => setQuery(e.target.value)} />
        <button type="submit" data-testid="buffer-search-submit" disabled={!query}>
          {s.search.submit}
        </button>
        <div className="search-toggles">
          <label className="inline-check">
            <input type="checkbox" data-testid="buffer-search-regex" checked={regex} onChange={(e) => toggle(e.target.checked, caseSensitive)} />
            {s.search.regex}
          </label>
          <label className="inline-check">
            <input type="checkbox" data-testid="buffer-search-case" checked={caseSensitive} onChange={(e) => toggle(regex, e.target.checked)} />
            {s.search.caseSensitive}
          </label>
        </div>
      </form>
      <div aria-live="polite">
        {params && result.isFetching && <p className="muted">{s.search.searching}</p>}
        {params && result.error && !result.isFetching && (
          <FieldError role="alert" data-testid="buffer-search-error">
            {result.error.info.code === 'TIMEOUT' && `${s.search.timeout} `}
            {result.error.message}
          </FieldError>
        )}
        {matches && !result.isFetching && (
          <p className="muted" data-testid="buffer-search-count">
            {matches.length === 0 ? s.search.none : s.search.count(matches.length)}
            {result.data?.more && (
              <>
                {' '}
                <strong data-testid="buffer-search-more">{s.search.more}</strong>
              </>
            )}
          </p>
        )}
      </div>
      {matches && matches.length > 0 && (
        <ol className="search-results">
          {matches.map((m, i) => (
            <li key={`${m.line}:${m.column}:${i}`}>
              <SearchResult match={m} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function SearchResult({ match }: { match: BufferMatch }) {
  const jumpTo = useInspect((st) => st.jumpTo);
  // A long line comes as a window around its match (textStart: where the window starts).
  const start = match.textStart ?? 0;
  const snippet = matchSnippet(match.text, match.column - start, match.length);
  const context = (text: string, line: number) => (
    <span className="result-context" key={line}>
      <span className="result-lineno">{line}</span>
      {drawnLine(text, CONTEXT_CHARS).text}
    </span>
  );
  return (
    <button type="button" className="search-result" data-testid="buffer-search-result" title={s.search.resultLabel(match.line)} onClick={() => jumpTo(match.line, { column: match.column, length: match.length })}>
      <span className="result-head">{s.search.lineColumn(match.line, match.column + 1)}</span>
      {match.before.map((text, i) => context(text, match.line - match.before.length + i))}
      <span className="result-context result-match">
        <span className="result-lineno">{match.line}</span>
        {(snippet.cutBefore || start > 0) && '…'}
        {snippet.before}
        {snippet.beyond ? <span className="result-beyond">{s.search.beyond(match.column + 1)}</span> : <mark>{snippet.match}</mark>}
        {snippet.after}
        {snippet.cutAfter && !snippet.beyond && '…'}
      </span>
      {match.after.map((text, i) => context(text, match.line + 1 + i))}
    </button>
  );
}
