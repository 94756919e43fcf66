/**
 * A bundle as a ZIP: "Export bundle" downloads the selected bundle with its tools and their
 * saved test cases ('transfer.exportBundle'); "Import bundle" sends a chosen ZIP
 * ('transfer.importBundle', as a new bundle, numbered when its slug or name is taken) and shows
 * the report, the rename and the test cases included. Files over MAX_IMPORT_ZIP_BYTES are
 * refused here, before anything is sent.
 *
 *   <BundleTransfer bundleId={selectedBundleId} />
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ChangeEvent } from 'react';
import { MAX_IMPORT_ZIP_BYTES, type ImportReport } from '../../../../shared/model/transfer';
import { evalsStrings } from '../../../i18n/evals-strings';
import { callOrThrow } from '../../../api/client';
import { FieldError } from '../../../components/Field';
import { saveFile } from '../../../components/save-file';
import { useApi } from '../../../api/hooks';
import { importStrings as s } from '../../../i18n/import-strings';
import { BusyButton } from '../BusyButton';

export interface BundleTransferProps {
  bundleId?: string;
}

const MAX_MIB = MAX_IMPORT_ZIP_BYTES / (1024 * 1024);
const errorMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Base64 of bytes, in chunks (String.fromCharCode with a huge spread overflows the stack). */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

export function base64ToBytes(b64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(b64);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export function BundleTransfer({ bundleId }: BundleTransferProps) {
  const { client } = useApi();
  const qc = useQueryClient();
  const id = useId();
  const [exporting, setExporting] = useState(false);
  const [exported, setExported] = useState<string | null>(null);
  const [exportError, setExportError] = useState<string | null>(null);
  const [importing, setImporting] = useState<string | null>(null);
  const [importError, setImportError] = useState<string | null>(null);
  const [report, setReport] = useState<ImportReport | null>(null);

  const onExport = async () => {
    if (!bundleId) return;
    setExporting(true);
    setExportError(null);
    setExported(null);
    try {
      const { fileName, base64 } = await callOrThrow(client, 'transfer.exportBundle', { bundleId });
      saveFile(new Blob([base64ToBytes(base64)], { type: 'application/zip' }), fileName);
      setExported(fileName);
    } catch (e) {
      setExportError(errorMessage(e));
    } finally {
      setExporting(false);
    }
  };

  const onImport = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    // Cleared so that choosing the same file again imports it again.
    e.target.value = '';
    if (!file || importing !== null) return;
    setImportError(null);
    setReport(null);
    if (file.size > MAX_IMPORT_ZIP_BYTES) {
      setImportError(s.bundle.tooLarge(file.name, file.size, MAX_MIB));
      return;
    }
    setImporting(file.name);
    try {
      let base64: string;
      try {
        base64 = bytesToBase64(new Uint8Array(await file.arrayBuffer()));
      } catch (err) {
        throw new Error(s.bundle.readFailed(errorMessage(err)), { cause: err });
      }
      setReport(await callOrThrow(client, 'transfer.importBundle', { base64 }));
      void qc.invalidateQueries({ queryKey: ['bundles.list'] });
      void qc.invalidateQueries({ queryKey: ['tools.list'] });
    } catch (err) {
      setImportError(errorMessage(err));
    } finally {
      setImporting(null);
    }
  };

  return (
    <div className="import-bundle" data-testid="bundle-transfer">
      <section aria-labelledby={`${id}-export`}>
        <h3 id={`${id}-export`}>{s.bundle.exportTitle}</h3>
        <p className="help">{bundleId ? s.bundle.exportHelp : s.bundle.exportNeedsBundle}</p>
        <div className="form-actions">
          <BusyButton data-testid="bundle-export" unavailable={!bundleId || exporting} onClick={() => void onExport()}>
            {exporting ? s.bundle.exporting : s.bundle.export}
          </BusyButton>
          {exported && (
            <span className="status-ok" role="status" data-testid="bundle-exported">
              {s.bundle.exported(exported)}
            </span>
          )}
        </div>
        {exportError && (
          <FieldError role="alert" data-testid="bundle-export-error">
            {exportError}
          </FieldError>
        )}
      </section>

      <section aria-labelledby={`${id}-import`}>
        <h3 id={`${id}-import`}>{s.bundle.importTitle}</h3>
        <p className="help" id={`${id}-import-help`}>
          {s.bundle.importHelp(MAX_MIB)}
        </p>
        <div className="form-actions">
          <label className="import-file">
            {s.bundle.import}
            <input
              type="file"
              data-testid="bundle-import-file"
              accept=".zip,application/zip"
              // Not disabled while importing: that would drop the keyboard focus; it opens no file chooser instead.
              aria-disabled={importing !== null || undefined}
              aria-describedby={`${id}-import-help`}
              onClick={(e) => importing !== null && e.preventDefault()}
              onChange={(e) => void onImport(e)}
            />
          </label>
          {importing !== null && (
            <span role="status" data-testid="bundle-import-progress">
              <progress /> {s.bundle.importing(importing)}
            </span>
          )}
        </div>
        {importError && (
          <FieldError role="alert" data-testid="bundle-import-error">
            {importError}
          </FieldError>
        )}
        {report && <ReportView report={report} />}
      </section>
    </div>
  );
}

function ReportView({ report }: { report: ImportReport }) {
  const id = useId();
  return (
    <section className="import-report" aria-labelledby={`${id}-title`} data-testid="import-report" data-nothing-imported={report.nothingImported}>
      <h4 id={`${id}-title`}>
        {s.bundle.report}
        {report.bundleSlug && <span className="muted"> · {s.bundle.bundle(report.bundleSlug)}</span>}
      </h4>
      {report.nothingImported && (
        <FieldError role="alert" data-testid="import-nothing">
          {s.bundle.nothingImported}
        </FieldError>
      )}
      {report.renamed && !report.nothingImported && (
        <p className="help" data-testid="import-renamed">
          {s.bundle.renamed(report.renamed.from.slug, report.renamed.from.displayName, report.renamed.to.slug, report.renamed.to.displayName)}
        </p>
      )}
      {report.imported.length > 0 && (
        <>
          <h5>{s.bundle.imported(report.imported.length)}</h5>
          <ul className="import-list" data-testid="import-imported">
            {report.imported.map((x) => (
              <li key={x}>
                <code>{x}</code>
              </li>
            ))}
          </ul>
        </>
      )}
      {report.testCases && report.testCases.length > 0 && (
        <>
          <h5>{s.bundle.testCases(report.testCases.reduce((n, t) => n + t.count, 0))}</h5>
          <ul className="import-list" data-testid="import-testcases">
            {report.testCases.map((t) => (
              <li key={t.slug}>
                <code>{t.slug}</code>: {s.bundle.testCasesOf(t.count)}
              </li>
            ))}
          </ul>
        </>
      )}
      {report.evalCases ? <p data-testid="import-evalcases">{evalsStrings.imported(report.evalCases)}</p> : null}
      {report.conflicts.length > 0 && (
        <>
          <h5>{s.bundle.conflicts(report.conflicts.length)}</h5>
          <ul className="import-list" data-testid="import-conflicts">
            {report.conflicts.map((x) => (
              <li key={x}>
                <code>{x}</code>
              </li>
            ))}
          </ul>
        </>
      )}
      {report.asks && report.asks.length > 0 && (
        <>
          <h5>{s.bundle.asks(report.asks.length)}</h5>
          <ul className="import-list" data-testid="import-asks">
            {report.asks.map((x) => (
              <li key={x.tool}>
                <code>{x.tool}</code>: {x.message}
              </li>
            ))}
          </ul>
        </>
      )}
      {report.invalid.length > 0 && (
        <>
          <h5>{s.bundle.invalid(report.invalid.length)}</h5>
          <ul className="import-list" data-testid="import-invalid">
            {report.invalid.map((x, i) => (
              <li key={`${x.entry}-${i}`}>
                <code>{x.entry}</code>: {x.message}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
