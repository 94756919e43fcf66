/**
 * Finding and reading workflow files: `.md` files in `<workspace>/workflows`. A path given
 * to run is relative to the workspace and must stay in that folder; a symbolic link that
 * leads out of the workspace is refused.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { workspacePathProblem } from '../../../shared/directives/parser';
import { AppError } from '../../../shared/errors';
import { WORKFLOWS_LIST_MAX, WORKFLOW_FILE_MAX_BYTES } from './limits';
import { defaultTitle } from './workflow-file';
import { leavesWorkspace, notInWorkflowsFolder, notText, tooLarge, workflowNotFound } from './strings';

export const WORKFLOWS_FOLDER = 'workflows';

export type ListedWorkflowFile = { path: string; text: string } | { path: string; title: string; error: string };

/** The `.md` files of the workflows folder, by name, each read or with why it cannot be. */
export async function listWorkflowFiles(workspaceDir: string): Promise<ListedWorkflowFile[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(path.join(workspaceDir, WORKFLOWS_FOLDER), { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw e;
  }
  const names = entries
    .filter((d) => (d.isFile() || d.isSymbolicLink()) && /\.md$/i.test(d.name))
    .map((d) => d.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, WORKFLOWS_LIST_MAX);
  const out: ListedWorkflowFile[] = [];
  for (const name of names) {
    const rel = `${WORKFLOWS_FOLDER}/${name}`;
    try {
      out.push(await readWorkflowFile(workspaceDir, rel));
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      out.push({ path: rel, title: defaultTitle(name), error: e.message });
    }
  }
  return out;
}

/** The file's text and its path as the app names it (`workflows/daily.md`). */
export async function readWorkflowFile(workspaceDir: string, given: string): Promise<{ path: string; text: string }> {
  const rel = given.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  const problem = workspacePathProblem(rel, 'workflow paths');
  if (problem) throw new AppError('VALIDATION_FAILED', problem, { path: given });
  if (!/^workflows\/[^/]+\.md$/i.test(rel)) throw new AppError('VALIDATION_FAILED', notInWorkflowsFolder(given), { path: given });

  let real: string;
  let root: string;
  try {
    root = await fs.realpath(workspaceDir);
    real = await fs.realpath(path.join(workspaceDir, rel));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new AppError('NOT_FOUND', workflowNotFound(rel), { path: rel });
    throw e;
  }
  if (real !== root && !real.startsWith(root + path.sep)) throw new AppError('FORBIDDEN', leavesWorkspace(rel), { path: rel });

  const stat = await fs.stat(real);
  if (!stat.isFile()) throw new AppError('NOT_FOUND', workflowNotFound(rel), { path: rel });
  if (stat.size > WORKFLOW_FILE_MAX_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', tooLarge(rel, WORKFLOW_FILE_MAX_BYTES), { path: rel });
  const bytes = await fs.readFile(real);
  try {
    return { path: rel, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    throw new AppError('VALIDATION_FAILED', notText(rel), { path: rel });
  }
}
