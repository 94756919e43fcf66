/**
 * The pass rate of each case on each model: a row per case, a column per model, each cell
 * the attempts that passed of those judged with its verdict (and "flaky" where some passed
 * and some failed), the last row each model over every case. A cell is a button that shows
 * its attempts below the table.
 */
import type { EvalCaseResult } from '../../../../shared/model/evals';
import { evalsStrings } from '../../../i18n/evals-strings';
import { formatRate, type RateTable } from './eval-report';

const s = evalsStrings.report;

export interface CellRef {
  caseId: string;
  bundleId: string;
  model: string;
}

export interface PassRateTableProps {
  table: RateTable;
  selected?: CellRef;
  onSelect?: (cell: CellRef) => void;
}

export const VERDICT_CLASS: Record<EvalCaseResult['verdict'], string> = { pass: 'badge ok', fail: 'badge danger', error: 'badge danger', 'not-run': 'badge' };

/** What a cell says: passed/judged and the rate, or why nothing was judged. */
export function cellText(r: EvalCaseResult): string {
  const judged = r.passed + r.failed;
  return judged ? s.rate(r.passed, judged, formatRate(r.passRate)) : s.noRate;
}

export function PassRateTable({ table, selected, onSelect }: PassRateTableProps) {
  return (
    <div className="eval-table-wrap" role="region" aria-label={s.table} tabIndex={0}>
      <table className="eval-table" data-testid="eval-rate-table">
        <caption className="visually-hidden">{s.tableCaption}</caption>
        <thead>
          <tr>
            <th scope="col">{s.caseColumn}</th>
            {table.models.map((m) => (
              <th key={m.key} scope="col" data-testid="eval-model-column">
                {m.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row) => (
            <tr key={`${row.bundleId}\u0000${row.caseId}`} data-testid="eval-row" data-case={row.name}>
              <th scope="row">{row.name}</th>
              {row.cells.map((cell, i) => {
                const model = table.models[i]!;
                if (!cell) {
                  return (
                    <td key={model.key} className="muted" data-testid="eval-cell" data-model={model.key} data-verdict="waiting">
                      {s.waiting}
                    </td>
                  );
                }
                const text = cellText(cell);
                const verdict = s.verdicts[cell.verdict];
                const isSelected = selected?.caseId === cell.caseId && selected.bundleId === cell.bundleId && selected.model === cell.model;
                const content = (
                  <>
                    <span className={VERDICT_CLASS[cell.verdict]}>{verdict}</span> <span className="eval-cell-rate">{text}</span>
                    {cell.flaky && (
                      <>
                        {' '}
                        <span className="badge eval-flaky" title={s.flakyHelp}>
                          {s.flaky}
                        </span>
                      </>
                    )}
                  </>
                );
                return (
                  <td key={model.key} data-testid="eval-cell" data-model={model.key} data-verdict={cell.verdict} data-flaky={cell.flaky} className={isSelected ? 'selected' : undefined}>
                    {onSelect ? (
                      <button
                        type="button"
                        className="eval-cell-button"
                        aria-pressed={isSelected}
                        aria-label={s.cellLabel(row.name, model.label, `${verdict} ${text}${cell.flaky ? ` ${s.flaky}` : ''}`)}
                        onClick={() => onSelect({ caseId: cell.caseId, bundleId: cell.bundleId, model: cell.model })}
                      >
                        {content}
                      </button>
                    ) : (
                      content
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
        {table.rows.length > 1 && (
          <tfoot>
            <tr>
              <th scope="row">{s.overall}</th>
              {table.totals.map((t, i) => (
                <td key={table.models[i]!.key} data-testid="eval-model-total" data-model={table.models[i]!.key}>
                  {t.judged ? s.rate(t.passed, t.judged, formatRate(t.rate)) : s.noRate}
                </td>
              ))}
            </tr>
          </tfoot>
        )}
      </table>
    </div>
  );
}
