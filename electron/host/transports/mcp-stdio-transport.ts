/**
 * The stdio transport of `toolsmith mcp`: one JSON-RPC message per line on stdin, answers on
 * stdout. The SDK's own transport stops reading for good after a line over its 10 MB buffer
 * (and then never sees stdin close either); this one answers a line it cannot take with a
 * JSON-RPC error (id null: the request could not be read), drops it, and reads on. The
 * process ends when stdin closes.
 */
import type { Readable, Writable } from 'node:stream';
import { parseJSONRPCMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';

/** The longest line (one message) read: as the SDK's transport takes. */
export const MAX_STDIO_LINE_BYTES = 10 * 1024 * 1024;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const NEWLINE = 0x0a;

export class LineStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Within a line that was too long: its bytes are dropped up to its end. */
  private skipping = false;
  private closed = false;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly maxLineBytes = MAX_STDIO_LINE_BYTES,
  ) {}

  private readonly onData = (chunk: Buffer) => {
    let from = 0;
    for (let nl = chunk.indexOf(NEWLINE, from); nl !== -1; nl = chunk.indexOf(NEWLINE, from)) {
      this.take(chunk.subarray(from, nl), true);
      from = nl + 1;
    }
    if (from < chunk.length) this.take(chunk.subarray(from), false);
  };

  private readonly onEnd = () => void this.close();
  private readonly onError = (e: Error) => this.onerror?.(e);

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('close', this.onEnd);
    this.stdin.on('error', this.onError);
  }

  /** A piece of a line; `ends` when a newline follows it. */
  private take(piece: Buffer, ends: boolean): void {
    if (!this.skipping && this.pendingBytes + piece.length > this.maxLineBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = true;
      this.reply(INVALID_REQUEST, `a message may be at most ${this.maxLineBytes} bytes (one line of JSON); a longer one was dropped unread`);
    }
    if (this.skipping) {
      if (ends) this.skipping = false;
      return;
    }
    if (!ends) {
      this.pending.push(piece);
      this.pendingBytes += piece.length;
      return;
    }
    const line = this.pending.length ? Buffer.concat([...this.pending, piece]) : piece;
    this.pending = [];
    this.pendingBytes = 0;
    this.line(line.toString('utf8').replace(/\r$/, ''));
  }

  private line(text: string): void {
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      this.reply(PARSE_ERROR, `a line is not JSON (${(e as Error).message}): each message is one line of JSON-RPC`);
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      this.reply(INVALID_REQUEST, 'a line is JSON but not a JSON-RPC 2.0 message');
      return;
    }
    this.onmessage?.(message);
  }

  /** An error answer to a message that could not be read. */
  private reply(code: number, message: string): void {
    this.onerror?.(new Error(message));
    void this.send({ jsonrpc: '2.0', id: null, error: { code, message } } as unknown as JSONRPCMessage);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + '\n')) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    this.stdin.off('error', this.onError);
    this.pending = [];
    this.onclose?.();
  }
}
