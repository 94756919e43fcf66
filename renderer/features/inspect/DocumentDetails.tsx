/**
 * One document: its metadata, summary, description and tags (edited here, saved with
 * documents.describe; what is typed is kept until saved or undone), every version, and a
 * link that opens the file in the Files tab.
 */
import { useId, type FormEvent } from 'react';
import type { DocumentInfo } from '../../../shared/model/document';
import { useOp, useOpMutation } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { QueryError } from '../../components/QueryError';
import { documentsStrings as s } from '../../i18n/documents-strings';
import { inspectStrings as is } from '../../i18n/inspect-strings';
import { formatBytes } from '../outputs/format';
import { describeDraftOf, describePatch, shortHash, tagsProblem, type DescribeDraft } from './document-filters';
import { useDocumentsUi } from './documents-store';
import { useInspect } from './inspect-store';
import { useCreatorLabel } from './use-creator-label';

const d = s.details;

export function DocumentDetails({ path }: { path: string }) {
  const ids = useId();
  const doc = useOp('documents.get', { path });
  const describe = useOpMutation('documents.describe');
  const typed = useDocumentsUi((st) => st.drafts[path]);
  const setDraft = useDocumentsUi((st) => st.setDraft);
  const openFile = useInspect((st) => st.openFile);
  const setTab = useInspect((st) => st.setTab);
  const who = useCreatorLabel();

  if (doc.error) return doc.error.info.code === 'NOT_FOUND' ? <p className="muted" role="status">{s.notFound(path)}</p> : <QueryError error={doc.error} onRetry={() => void doc.refetch()} />;
  if (!doc.data) return <p className="muted">{d.loading}</p>;
  const info = doc.data;
  const draft: DescribeDraft = typed ?? describeDraftOf(info);
  const patch = describePatch(info, draft);
  const dirty = Object.keys(patch).length > 0;
  const tagsError = tagsProblem(draft.tags, d.tooManyTags, d.tagTooLong);
  const change = (p: Partial<DescribeDraft>) => {
    if (describe.error || describe.isSuccess) describe.reset();
    setDraft(path, { ...draft, ...p });
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!dirty || tagsError) return;
    describe.mutate({ path, ...patch }, { onSuccess: () => setDraft(path, null) });
  };
  const versions = [...(info.versions ?? [])].reverse();

  return (
    <article className="document-details" aria-label={d.label(info.path)} data-testid="document-details">
      <header className="document-details-head">
        <h3 className="document-details-path" data-testid="document-path">
          {info.path}
        </h3>
        <button
          type="button"
          className="small-button"
          data-testid="document-open-file"
          aria-label={d.openFileLabel(info.path)}
          onClick={() => {
            openFile(info.path);
            setTab('files');
          }}
        >
          {d.openFile}
        </button>
      </header>
      <dl className="document-meta" data-testid="document-meta">
        <dt>{d.meta.type}</dt>
        <dd>{info.mimeType}</dd>
        <dt>{d.meta.size}</dt>
        <dd>{formatBytes(info.sizeBytes)}</dd>
        <dt>{d.meta.tokens}</dt>
        <dd>{info.tokenCount !== undefined ? s.item.tokens(info.tokenCount) : <span className="muted">{d.noTokens}</span>}</dd>
        <dt>{d.meta.createdBy}</dt>
        <dd title={info.createdBy}>{who(info.createdBy)}</dd>
        <dt>{d.meta.createdAt}</dt>
        <dd>{is.when(info.createdAt)}</dd>
        <dt>{d.meta.updatedBy}</dt>
        <dd title={info.updatedBy}>{who(info.updatedBy)}</dd>
        <dt>{d.meta.updatedAt}</dt>
        <dd>{is.when(info.updatedAt)}</dd>
      </dl>
      <section aria-labelledby={`${ids}-summary`}>
        <h4 id={`${ids}-summary`}>{d.summary}</h4>
        {info.autoSummary ? (
          <pre className="document-summary" data-testid="document-summary">
            {info.autoSummary}
          </pre>
        ) : (
          <p className="muted">{d.noSummary}</p>
        )}
        {info.autoSummary && info.summaryInfo && <SummarySource info={info} />}
      </section>
      <form className="document-describe" onSubmit={onSubmit} aria-labelledby={`${ids}-describe`} data-testid="document-describe">
        <h4 id={`${ids}-describe`}>{d.describeTitle}</h4>
        <label htmlFor={`${ids}-description`}>{d.description}</label>
        <textarea
          id={`${ids}-description`}
          data-testid="document-description"
          rows={3}
          maxLength={2000}
          value={draft.description}
          aria-describedby={`${ids}-description-help`}
          onChange={(e) => change({ description: e.target.value })}
        />
        <p className="help" id={`${ids}-description-help`}>
          {d.descriptionHelp}
        </p>
        <label htmlFor={`${ids}-tags`}>{d.tags}</label>
        <input
          id={`${ids}-tags`}
          data-testid="document-tags"
          value={draft.tags}
          autoComplete="off"
          aria-invalid={!!tagsError || undefined}
          aria-describedby={`${ids}-tags-help${tagsError ? ` ${ids}-tags-error` : ''}`}
          onChange={(e) => change({ tags: e.target.value })}
        />
        <p className="help" id={`${ids}-tags-help`}>
          {d.tagsHelp}
        </p>
        {tagsError && (
          <FieldError id={`${ids}-tags-error`} data-testid="document-tags-error">
            {tagsError}
          </FieldError>
        )}
        {describe.error && (
          <FieldError role="alert" data-testid="document-describe-error">
            {d.failed} <code className="error-code">{describe.error.info.code}</code> {describe.error.message}
          </FieldError>
        )}
        <div className="form-actions">
          <button type="submit" className="primary" data-testid="document-describe-save" disabled={!dirty || !!tagsError || describe.isPending}>
            {describe.isPending ? d.saving : d.save}
          </button>
          <button type="button" disabled={!dirty} onClick={() => setDraft(path, null)}>
            {d.reset}
          </button>
          {describe.isSuccess && !dirty && (
            <span className="status-ok" role="status" data-testid="document-describe-saved">
              {d.saved}
            </span>
          )}
        </div>
      </form>
      <section aria-labelledby={`${ids}-versions`}>
        <h4 id={`${ids}-versions`}>
          {d.versions} <span className="muted small">({d.versionCount(versions.length)})</span>
        </h4>
        <div className="document-versions-wrap">
          <table className="document-versions" data-testid="document-versions">
            <thead>
              <tr>
                <th scope="col">{d.columns.seq}</th>
                <th scope="col">{d.columns.at}</th>
                <th scope="col">{d.columns.by}</th>
                <th scope="col" className="num">
                  {d.columns.size}
                </th>
                <th scope="col">{d.columns.hash}</th>
              </tr>
            </thead>
            <tbody>
              {versions.map((v) => (
                <tr key={v.seq} data-testid="document-version">
                  <td>{v.seq}</td>
                  <td>{is.when(v.at)}</td>
                  <td>
                    <span className="document-by" title={v.by}>
                      {who(v.by)}
                    </span>
                  </td>
                  <td className="num">{formatBytes(v.sizeBytes)}</td>
                  <td>
                    <code title={d.hashTitle(v.hash)}>{shortHash(v.hash)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </article>
  );
}

/** Where the summary comes from: a model (for which version), or the first lines (and why a model's could not be had). */
function SummarySource({ info }: { info: DocumentInfo }) {
  const src = info.summaryInfo!;
  const providers = useOp('providers.list', {});
  const seq = info.versions?.find((v) => v.hash === src.hash)?.seq;
  // Kept as `providerId/model`: said with the provider's name while it exists.
  const at = src.model?.indexOf('/') ?? -1;
  const provider = at > 0 ? providers.data?.find((p) => p.id === src.model!.slice(0, at)) : undefined;
  const model = provider ? `${src.model!.slice(at + 1)} (${provider.name})` : (src.model ?? '?');
  return (
    <>
      <p className="muted small document-summary-source" data-testid="document-summary-source">
        {src.source === 'model' ? d.summaryByModel(model, seq) : d.summaryFirstLines}
      </p>
      {src.source === 'first-lines' && src.failed && (
        <FieldError className="small" data-testid="document-summary-failed">
          {d.summaryFailed(src.failed)}
        </FieldError>
      )}
    </>
  );
}
