/**
 * The servers' configs: one file per server, `<data>/mcp-servers/<bundleId>.json`, written
 * atomically and private (0600: an env or a header may hold a token). A file that does not
 * parse is set aside and reported; its bundle and tools stay as they are.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { McpServerFileSchema, type McpServerFile } from '../../../shared/model/mcp-client';
import { moveAside, readJson } from '../lib/json-file';
import { writeFileAtomic } from '../lib/atomic-write';

export const SERVERS_DIR = 'mcp-servers';

export interface ServerFileProblem {
  path: string;
  message: string;
}

export class ServerFiles {
  readonly dir: string;
  constructor(
    dataDir: string,
    private readonly now: () => Date,
  ) {
    this.dir = path.join(dataDir, SERVERS_DIR);
  }

  fileOf(bundleId: string): string {
    return path.join(this.dir, `${bundleId}.json`);
  }

  async readAll(onProblem: (p: ServerFileProblem) => void): Promise<McpServerFile[]> {
    let names: string[];
    try {
      names = await fsp.readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const out: McpServerFile[] = [];
    for (const name of names.sort()) {
      if (!name.endsWith('.json')) continue;
      const file = path.join(this.dir, name);
      const r = await readJson(file).catch((e: unknown) => ({ kind: 'corrupt' as const, message: (e as Error).message }));
      if (r.kind === 'missing') continue;
      const parsed = r.kind === 'ok' ? McpServerFileSchema.safeParse(r.value) : undefined;
      if (parsed?.success && `${parsed.data.bundleId}.json` === name) {
        out.push(parsed.data);
        continue;
      }
      const why = r.kind === 'corrupt' ? r.message : parsed && !parsed.success ? `${parsed.error.issues[0]?.path.join('.') || 'file'}: ${parsed.error.issues[0]?.message}` : 'its bundleId does not match its name';
      const aside = await moveAside(file, this.now()).catch(() => undefined);
      onProblem({ path: file, message: `an MCP server config could not be read (${why}); ${aside ? `moved to ${path.basename(aside)}` : 'left in place'}, the server is not started` });
    }
    return out;
  }

  async write(file: McpServerFile): Promise<void> {
    await fsp.mkdir(this.dir, { recursive: true });
    await writeFileAtomic(this.fileOf(file.bundleId), `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, exactMode: true });
  }

  async remove(bundleId: string): Promise<void> {
    await fsp.rm(this.fileOf(bundleId), { force: true });
  }
}
