/**
 * What the model saw in an attempt: the tools each of its requests carried (after tool search,
 * only those loaded by then), each with the description and parameters the model read, the
 * expected and the called ones marked, and an expected tool no request carried said so. A tool
 * of the registry opens in the editor, where a new version with a clearer description can be
 * saved and the case run again.
 */
import { useId } from 'react';
import { FieldError } from '../../../components/Field';
import { evalsStrings } from '../../../i18n/evals-strings';
import type { ModelSaw } from './eval-report';
import type { OpenTool } from './EvalReport';

const s = evalsStrings.saw;

export function ModelSawView({ saw, onOpenTool }: { saw: ModelSaw; onOpenTool: OpenTool }) {
  const headingId = useId();
  return (
    <section className="eval-saw" aria-labelledby={headingId} data-testid="eval-model-saw">
      <p id={headingId} className="eval-sub">
        {s.title}
      </p>
      <p className="muted small">{s.intro}</p>
      {saw.notOffered.map((t) => (
        <FieldError key={t} data-testid="eval-not-offered">
          {s.notOffered(t)}
        </FieldError>
      ))}
      {saw.steps.map((step) => (
        <details key={step.n} className="eval-saw-step" open={step.n === saw.open} data-testid="eval-saw-step">
          <summary>{s.step(step.n, step.to, step.tools.length)}</summary>
          <ul className="eval-saw-tools">
            {step.tools.map((t) => (
              <li key={t.key} className={t.expected ? 'expected' : undefined} data-testid="eval-saw-tool" data-tool={t.label ?? t.name}>
                <div className="eval-saw-line">
                  <code>{t.name}</code>
                  {t.tool && (
                    <span className="muted small">
                      {t.label}@{t.tool.version}
                    </span>
                  )}
                  {t.expected && <span className="badge ok">{s.expected}</span>}
                  {t.called && <span className="badge">{s.chosen}</span>}
                  {t.tool && (
                    <button
                      type="button"
                      className="link-button eval-saw-edit"
                      data-testid="eval-edit-description"
                      aria-label={s.editLabel(`${t.label}@${t.tool.version}`)}
                      onClick={() => onOpenTool({ bundleId: t.tool!.bundleId, slug: t.tool!.slug, version: t.tool!.version })}
                    >
                      {s.edit}
                    </button>
                  )}
                </div>
                <p className="eval-saw-description">{t.description.trim() ? t.description : <span className="muted">{s.noDescription}</span>}</p>
                <details className="eval-saw-params">
                  <summary>{s.parameters}</summary>
                  <pre>{JSON.stringify(t.parameters, null, 2)}</pre>
                </details>
              </li>
            ))}
          </ul>
        </details>
      ))}
    </section>
  );
}
