/**
 * Every user-visible string of Settings → Memory sources (docs/memory.md, "Sources"). Kept
 * apart from strings.ts like the other screens' strings.
 */
import { isOne } from './plural';
import type { SourceStatus } from '../../shared/model/memory-sources';

export const memorySourcesStrings = {
  title: 'Memory sources',
  help: 'Folders models reach through memory. A FileSource lets the file tool load its files into blocks, edit and save them, under your rules: one per line, a glob and a permission; the first rule that matches a file decides, and a file no rule matches is refused. A folder watcher reports new and changed files to the blocks a model subscribes with block load and the source’s id.',
  none: 'No memory sources yet.',
  kind: 'Kind',
  kinds: { files: 'FileSource (the file tool)', watch: 'Folder watcher (notifications)' } as Record<'files' | 'watch', string>,
  id: 'Id',
  idHelp: 'Lowercase letters, digits and dashes: what source_id names.',
  folder: 'Folder',
  folderPlaceholder: '/home/me/notes',
  rules: 'Rules',
  rulesHelp: 'One per line: a glob, then ReadOnly, Partner, Human, Append, ReadWrite or Admin. For example: drafts/** ReadWrite, then ** ReadOnly.',
  include: 'Files reported',
  includeHelp: 'One glob per line (empty: every file).',
  add: 'Add source',
  save: 'Save source',
  saving: 'Saving…',
  cancel: 'Cancel',
  saved: (id: string) => `Source ${id} saved.`,
  edit: (id: string) => `Edit source ${id}`,
  remove: (id: string) => `Remove source ${id}`,
  confirmRemove: (id: string) => `Remove source ${id}? Its files stay on disk; blocks already loaded stay in memory.`,
  pause: 'Pause',
  resume: 'Resume',
  states: { active: 'active', watching: 'watching', paused: 'paused', error: 'error' } as Record<SourceStatus['state'], string>,
  notifications: (n: number) => `${n} notification${isOne(n) ? '' : 's'}`,
  loaded: (n: number) => `${n} file${isOne(n) ? '' : 's'} loaded`,
  badRule: (line: number, text: string) => `Rule on line ${line} (${text}): write a glob, a space, then one of ReadOnly, Partner, Human, Append, ReadWrite, Admin.`,
  noRules: 'Add at least one rule: without one, every file is refused.',
};
