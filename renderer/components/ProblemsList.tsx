import { useOp } from '../api/hooks';
import { t } from '../i18n/strings';

/** What the core found wrong in the data folder (corrupt files set aside, invalid configs). */
export function ProblemsList({ onlyWhenAny = false }: { onlyWhenAny?: boolean }) {
  const problems = useOp('app.problems', {});
  if (onlyWhenAny && !problems.data?.length) return null;
  return (
    <section className="problems" aria-labelledby="problems-title">
      <h2 id="problems-title">{t.settings.problems}</h2>
      {problems.data && problems.data.length === 0 && <p className="muted">{t.settings.noProblems}</p>}
      <ul data-testid="problems-list">
        {problems.data?.map((p) => (
          <li key={p.id}>
            <code>{p.path}</code>: {p.message}
            {p.movedTo && (
              <>
                {' '}
                ({t.settings.movedTo} <code>{p.movedTo}</code>)
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
