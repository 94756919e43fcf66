/**
 * A `tool_output` call's extraction on its card: the strategy used (and the one asked for),
 * its chunks, model calls, tokens in and out, duration, why that strategy, and a fallback
 * with its reason.
 */
import type { ExtractionInfo } from '../../../shared/model/conversation';
import { outputStrings as s } from '../../i18n/output-strings';
import { formatDuration } from './format';
import '../outputs/outputs.css';

export function ExtractionView({ x }: { x: ExtractionInfo }) {
  return (
    <section className="extraction" data-testid="extraction" data-strategy={x.used} aria-label={s.extraction.label}>
      <dl className="extraction-figures">
        <div>
          <dt>{s.extraction.strategy}</dt>
          <dd data-testid="extraction-strategy">
            <code>{x.used}</code>
            {x.requested !== 'auto' && x.requested !== x.used && <span className="muted"> ({s.extraction.asked(x.requested)})</span>}
          </dd>
        </div>
        {x.chunks !== undefined && (
          <div>
            <dt>{s.extraction.chunks}</dt>
            <dd data-testid="extraction-chunks">{x.chunks.toLocaleString('en')}</dd>
          </div>
        )}
        <div>
          <dt>{s.extraction.modelCalls}</dt>
          <dd data-testid="extraction-calls">{x.modelCalls.toLocaleString('en')}</dd>
        </div>
        <div>
          <dt>{s.extraction.tokens}</dt>
          <dd data-testid="extraction-tokens">{s.extraction.tokensValue(x.tokensIn, x.tokensOut)}</dd>
        </div>
        <div>
          <dt>{s.extraction.duration}</dt>
          <dd data-testid="extraction-duration">{formatDuration(x.durationMs)}</dd>
        </div>
      </dl>
      {x.why && (
        <p className="muted small" data-testid="extraction-why">
          {s.extraction.why}: {x.why}
        </p>
      )}
      {x.fallback && (
        <p className="extraction-fallback" role="note" data-testid="extraction-fallback">
          {s.extraction.fallback(x.fallback.from, x.fallback.reason)}
        </p>
      )}
      {x.notFound && <p className="muted small">{s.extraction.notFound}</p>}
    </section>
  );
}
