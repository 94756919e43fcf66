/**
 * A stdio MCP server's process and its messages, on POSIX (Windows keeps the SDK's transport).
 * Ours rather than the SDK's for two things the SDK's cannot do:
 * - the server runs in its own process group (`detached`), and ending it signals the whole group,
 *   so a wrapper (npx, uvx, a shell) and the server it started, and their children, end together;
 * - a line over the size limit that may answer a waiting call, or a process that is gone, closes
 *   the transport at once: the calls waiting on it fail now, not at their timeout (the SDK's waits
 *   for the process's pipes to close, which a child that inherited stdout can hold open for ever);
 * - a line over the size limit that answers no waiting call (a late answer to a call that timed
 *   out or was cancelled, a notification) is read to its end and dropped, never kept: the calls
 *   that do wait go on (line-reader.ts: how it is told apart).
 * Messages are one JSON-RPC message per line, as in the SDK; a line that is not one is reported
 * (quoted) through onerror and skipped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { parseJSONRPCMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { LineReader, oversizePolicy } from './line-reader';

export interface StdioTransportParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The longest line (message) the server may send, in bytes. */
  maxMessageBytes: number;
  onStderr: (chunk: Buffer) => void;
  /**
   * The ids of the requests sent and still waited for. With it, a line over the limit that
   * answers none of them is dropped; without it, every line over the limit closes the transport.
   */
  pending?: ReadonlySet<string | number>;
  /** A line over the limit was dropped (what it was, in words, for the server's log). */
  onDropped?: (words: string) => void;
}

/** How long the server has to end after its stdin is closed, then after SIGTERM. */
export const STDIO_END_GRACE_MS = 2_000;
/** How long the pipes may stay open after the server's own process ended (a child holding them). */
const PIPES_AFTER_EXIT_MS = 1_000;
/** How much of a line that is not an MCP message is quoted in the error. */
const JUNK_QUOTE_CHARS = 200;
/**
 * A line over the limit that is being dropped is read (and thrown away) up to this many times the
 * limit; a longer one (a server writing without end) closes the transport.
 */
export const MAX_DROPPED_LINE_FACTOR = 16;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  /** Told the process id as soon as the process runs. */
  onStarted?: (pid: number) => void;
  /** The process id, kept after the process ended (for the log and for ending its group). */
  pid: number | undefined;
  private child: ChildProcess | undefined;
  private readonly lines: LineReader;
  private closeFired = false;
  private exited = false;
  private ending: Promise<void> | undefined;
  private readonly exitWaiters: (() => void)[] = [];

  constructor(private readonly params: StdioTransportParams) {
    this.lines = new LineReader(params.maxMessageBytes, params.pending ? oversizePolicy(params.pending, params.maxMessageBytes, params.onDropped) : undefined, MAX_DROPPED_LINE_FACTOR * params.maxMessageBytes);
  }

  start(): Promise<void> {
    if (this.child) throw new Error('the stdio transport is already started');
    const p = this.params;
    return new Promise((resolve, reject) => {
      const child = spawn(p.command, p.args, {
        env: { ...getDefaultEnvironment(), ...p.env },
        cwd: p.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        // Its own process group (and session): the group is what stop signals.
        detached: true,
        shell: false,
      });
      this.child = child;
      // Known at once when the spawn worked, so a close while it starts still ends it.
      this.pid = child.pid;
      child.on('error', (e) => {
        reject(e);
        this.onerror?.(e);
        this.fireClose();
      });
      child.on('spawn', () => {
        if (this.pid !== undefined) this.onStarted?.(this.pid);
        resolve();
      });
      child.on('exit', () => {
        this.exited = true;
        for (const w of this.exitWaiters.splice(0)) w();
        // Its last lines may still be in the pipe; a child of it may hold the pipe open for ever.
        setTimeout(() => void this.close(), PIPES_AFTER_EXIT_MS).unref();
      });
      child.on('close', () => void this.close());
      child.stdin?.on('error', (e) => this.onerror?.(e));
      child.stdout?.on('error', (e) => this.onerror?.(e));
      child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
      child.stderr?.on('data', p.onStderr);
    });
  }

  private read(chunk: Buffer): void {
    if (this.closeFired) return;
    let lines: Buffer[];
    try {
      lines = this.lines.push(chunk);
    } catch (e) {
      // Nothing more is read from it: the line is not kept and the server is ended.
      this.child?.stdout?.destroy();
      this.onerror?.(e as Error);
      void this.close();
      return;
    }
    for (const line of lines) {
      if (this.closeFired) return;
      const message = parseLine(line);
      if (message instanceof Error) this.onerror?.(message);
      else if (message) this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (this.closeFired || !stdin || stdin.destroyed) {
        reject(new Error('Not connected'));
        return;
      }
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /**
   * Closes now (waiting calls fail at once) and ends the server: stdin closed, then SIGTERM to its
   * process group, then SIGKILL, each after STDIO_END_GRACE_MS. Resolves once the group is gone
   * (or SIGKILL was sent).
   */
  close(): Promise<void> {
    this.fireClose();
    this.ending ??= this.end();
    return this.ending;
  }

  /** SIGKILL to the whole group now (a server that failed to start). True when something was signalled. */
  kill(): boolean {
    this.fireClose();
    return this.pid !== undefined && signalGroup(this.pid, 'SIGKILL');
  }

  private fireClose(): void {
    if (this.closeFired) return;
    this.closeFired = true;
    this.lines.clear();
    this.onclose?.();
  }

  private async end(): Promise<void> {
    const child = this.child;
    const pid = this.pid;
    if (!child || pid === undefined) return;
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    await this.exitOrAfter(STDIO_END_GRACE_MS);
    // The server's own process may have ended on its stdin closing; its children (a wrapper's
    // server, what that started) are in its group still.
    if (!signalGroup(pid, 'SIGTERM')) return;
    if (await groupGoneWithin(pid, STDIO_END_GRACE_MS)) return;
    signalGroup(pid, 'SIGKILL');
  }

  private exitOrAfter(ms: number): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      t.unref();
      this.exitWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}

/**
 * Sends `signal` to the process group `pgid` (the server started it as its leader). False when
 * no process of the group is left.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

async function groupGoneWithin(pgid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (!signalGroup(pgid, 0)) return true;
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, 25).unref());
  }
}

/** One JSON-RPC message, undefined for a blank line, an Error (quoting the line) for anything else. */
function parseLine(line: Buffer): JSONRPCMessage | Error | undefined {
  const text = line.toString('utf8').replace(/\r$/, '');
  if (text.trim() === '') return undefined;
  try {
    return parseJSONRPCMessage(JSON.parse(text));
  } catch (e) {
    // JSON.parse names what is wrong; the schema's error is a long list of union branches.
    const first = e instanceof SyntaxError ? e.message.slice(0, 300) : 'not a JSON-RPC message';
    const quoted = text.length > JUNK_QUOTE_CHARS ? `${text.slice(0, JUNK_QUOTE_CHARS)}…` : text;
    return new Error(`${first} — the line: ${JSON.stringify(quoted)}`);
  }
}
