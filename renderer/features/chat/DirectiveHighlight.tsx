/**
 * Directive highlighting: the text cut into runs coloured by the parser's spans, with
 * directive errors underlined. The composer lays it behind its transparent textarea (so
 * the runs must reproduce the text exactly, with no change of width); sent messages show
 * it as is.
 */
import { memo, useMemo, type Ref } from 'react';
import type { ParsedText } from '../../../shared/directives/types';
import { parseDirectives } from '../../../shared/directives/parser';
import { segmentText, type Segment } from './highlight-segments';

function Runs({ segments }: { segments: readonly Segment[] }) {
  return (
    <>
      {segments.map((seg, i) =>
        seg.kind === null && !seg.error ? (
          seg.text
        ) : (
          <span key={i} className={`hl${seg.kind ? ` hl-${seg.kind}` : ''}${seg.error ? ' hl-bad' : ''}`}>
            {seg.text}
          </span>
        ),
      )}
    </>
  );
}

/** The layer behind the composer's textarea: same text, same box, coloured. */
export const HighlightLayer = memo(function HighlightLayer({ text, parsed, ref }: { text: string; parsed: ParsedText; ref?: Ref<HTMLDivElement> }) {
  const segments = useMemo(() => segmentText(text, parsed.highlights, parsed.errors), [text, parsed]);
  return (
    <div ref={ref} className="composer-mirror" aria-hidden="true">
      <Runs segments={segments} />
      {/* A trailing newline needs a character after it to take its line, as in the textarea. */}
      {'\u200b'}
    </div>
  );
});

/** A sent message's text with its directives coloured. */
export function HighlightedText({ text }: { text: string }) {
  const segments = useMemo(() => {
    const parsed = parseDirectives(text);
    return segmentText(text, parsed.highlights, parsed.errors);
  }, [text]);
  return (
    <div className="message-text">
      <Runs segments={segments} />
    </div>
  );
}
