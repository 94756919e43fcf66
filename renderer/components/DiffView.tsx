/** A unified diff, line by line; additions and removals keep their + and - (colour is not the only sign). */
import type { DiffLine } from './diff-lines';
import './diff.css';

export function DiffView({ lines, label, testId }: { lines: readonly DiffLine[]; label: string; testId?: string }) {
  return (
    <pre className="diff-view" aria-label={label} data-testid={testId} tabIndex={0}>
      {lines.map((l, i) => (
        <span key={i} className={`diff-line diff-${l.kind}`} data-kind={l.kind}>
          {l.text}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
