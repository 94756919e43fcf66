/** The Files tab: the workspace tree beside the open file, and a refresh for both. */
import { useQueryClient } from '@tanstack/react-query';
import { inspectStrings as s } from '../../i18n/inspect-strings';
import { FileTree } from './FileTree';
import { FileViewer } from './FileViewer';
import { useInspect } from './inspect-store';

export function FilesTab() {
  const file = useInspect((st) => st.file);
  const qc = useQueryClient();
  // The workspace sends no change events: the lists and the file are read again on demand.
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: ['workspace.list'] });
    void qc.invalidateQueries({ queryKey: ['workspace.read'] });
  };
  return (
    <div className="inspect-split">
      <section className="inspect-side" aria-labelledby="files-tree-title">
        <div className="side-head">
          <h2 id="files-tree-title">{s.files.title}</h2>
          <button type="button" className="small-button" data-testid="file-refresh" aria-label={s.files.refreshLabel} title={s.files.refreshLabel} onClick={refresh}>
            {s.files.refresh}
          </button>
        </div>
        <FileTree />
      </section>
      <div className="inspect-main">{file ? <FileViewer key={file} path={file} /> : <p className="muted">{s.files.pick}</p>}</div>
    </div>
  );
}
