/**
 * Every user-visible string of the Buffers and Files tabs of the Inspect screen
 * (renderer/features/inspect). Kept apart from strings.ts, to be merged into it as
 * `en.inspect`.
 */
const n = (v: number) => v.toLocaleString('en');
const plural = (v: number, one: string, many: string) => `${n(v)} ${v === 1 ? one : many}`;

export const inspectStrings = {
  size: {
    chars: (v: number) => plural(v, 'char', 'chars'),
    lines: (v: number) => plural(v, 'line', 'lines'),
    bytes: (v: number) => (v < 1024 ? plural(v, 'byte', 'bytes') : v < 1024 * 1024 ? `${(v / 1024).toFixed(1)} KiB` : `${(v / 1024 / 1024).toFixed(1)} MiB`),
  },
  when: (iso: string) => {
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
  },
  buffers: {
    listTitle: 'Buffers',
    listLabel: 'Buffers of this conversation',
    noOwnerTitle: 'No conversation open',
    noOwner: 'Open a conversation in Chat: its buffers are listed here. Route a tool’s output to one with output=variable:NAME.',
    owner: (id: string) => `Owner: ${id}`,
    loading: 'Loading buffers…',
    empty: 'No buffers yet. Route a tool’s output to a buffer with output=variable:NAME and it appears here.',
    updated: (when: string) => `updated ${when}`,
    source: (source: string) => `from ${source}`,
    pick: 'Pick a buffer on the left to read it.',
    notFound: (name: string) => `The buffer ${name} does not exist (any more).`,
  },
  viewer: {
    label: (name: string) => `Contents of buffer ${name}`,
    emptyBuffer: 'This buffer is empty.',
    loadingLine: '…',
    pageFailed: (from: number, to: number, message: string) => `Could not read lines ${n(from)}–${n(to)}: ${message}`,
    hiddenChars: (v: number) => ` … ${n(v)} more characters on this line`,
    goToLine: 'Go to line',
    goToLineLabel: (total: number) => `Go to line (1 to ${n(total)})`,
    go: 'Go',
    lineOutOfRange: (total: number) => `Lines go from 1 to ${n(total)}.`,
    stats: (chars: number, lines: number) => `${plural(chars, 'char', 'chars')}, ${plural(lines, 'line', 'lines')}`,
    delete: 'Delete buffer',
    confirmDelete: (name: string) => `Delete the buffer ${name}? Its content is lost; manifests that name it stay in the chat.`,
    confirmDeleteYes: 'Delete',
    keep: 'Keep',
    deleted: (name: string) => `Deleted ${name}.`,
  },
  search: {
    title: 'Search',
    input: 'Search in the buffer',
    placeholder: 'Text, or a regular expression',
    regex: 'Regular expression',
    caseSensitive: 'Match case',
    submit: 'Search',
    searching: 'Searching…',
    none: 'No matches.',
    count: (v: number) => plural(v, 'match', 'matches'),
    more: 'More matches — refine the search.',
    line: (line: number) => `Line ${n(line)}`,
    beyond: (column: number) => `… match at column ${n(column)}`,
    resultLabel: (line: number) => `Show line ${n(line)} in the viewer`,
    timeout: 'The search took too long and was stopped:',
  },
  export: {
    title: 'Export to a file',
    path: 'Path in the workspace',
    pathHelp: 'Relative to the workspace folder, e.g. exports/results.md.',
    defaultPath: (name: string) => `exports/${name}.md`,
    mode: 'If the file exists',
    modes: { append: 'Append to it', replace: 'Replace it', new: 'Write a new numbered file' },
    submit: 'Export',
    exporting: 'Exporting…',
    done: (chars: number, path: string) => `Exported ${plural(chars, 'char', 'chars')} to ${path}.`,
    open: 'Open file',
  },
  files: {
    treeLabel: 'Workspace files',
    title: 'Workspace',
    refresh: 'Refresh',
    refreshLabel: 'Refresh the file list and the open file',
    loading: 'Loading…',
    emptyFolder: 'Empty folder',
    emptyWorkspace: 'No files yet. Tools that write into the workspace folder put their files here.',
    folderFailed: (message: string) => `Could not list this folder: ${message}`,
    pick: 'Pick a file in the tree to read it.',
    openSystem: 'Open in system',
    openSystemLabel: (path: string) => `Open ${path} with the system’s application`,
    opened: 'Opened.',
    binary: (size: string) => `This file looks binary (${size}): it is not shown here. Open it in the system to see it.`,
    shown: (shown: string, total: string) => `Showing ${shown} of ${total}.`,
    loadMore: 'Load more',
    loadingMore: 'Loading…',
    emptyFile: 'This file is empty.',
    viewerLabel: (path: string) => `Contents of ${path}`,
    modified: (when: string) => `modified ${when}`,
  },
} as const;
