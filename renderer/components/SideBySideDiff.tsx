/**
 * Two values side by side, line against line (splitJsonDiff): a removed line on the left faces
 * the line added in its place on the right. Each changed line keeps its - or + (colour is not the
 * only sign), and the table's column headers name the two sides. Scrolls on its own; focusable
 * so the keyboard can scroll it.
 */
import type { SplitCell, SplitRow } from './diff-lines';
import './diff.css';

export interface SideBySideDiffProps {
  rows: readonly SplitRow[];
  left: string;
  right: string;
  label: string;
  testId?: string;
}

export function SideBySideDiff({ rows, left, right, label, testId }: SideBySideDiffProps) {
  return (
    <div className="split-diff" role="region" aria-label={label} tabIndex={0} data-testid={testId}>
      <table>
        <colgroup>
          <col className="split-n-col" />
          <col />
          <col className="split-n-col" />
          <col />
        </colgroup>
        <thead>
          <tr>
            <th scope="col" colSpan={2}>
              {left}
            </th>
            <th scope="col" colSpan={2}>
              {right}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              <Cell cell={r.left} side="left" />
              <Cell cell={r.right} side="right" />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const SIGN = { same: ' ', remove: '-', add: '+' } as const;

function Cell({ cell, side }: { cell?: SplitCell; side: 'left' | 'right' }) {
  if (!cell) {
    return (
      <>
        <td className="split-n" />
        <td className={`split-text split-empty split-${side}`} />
      </>
    );
  }
  return (
    <>
      <td className="split-n" aria-hidden="true">
        {cell.n}
      </td>
      <td className={`split-text diff-${cell.kind} split-${side}`} data-kind={cell.kind}>
        {SIGN[cell.kind]}
        {cell.text}
      </td>
    </>
  );
}
