/**
 * The SDK's client, with what a server sent handled in the order it was sent. The SDK hands each
 * notification to its handler a microtask later but settles an answer at once: a server that
 * reports its last progress and then answers (the two often read together) would have that report
 * dropped, its request already forgotten ("a progress notification for an unknown token"). Here an
 * answer that arrives while notifications wait for their handlers waits behind them.
 *
 * It also takes a task as an answer (the tasks extension of MCP 2026-07-28, which the SDK does
 * not speak: it refuses any result whose `resultType` is `task`). Such an answer reaches the
 * request as a ProtocolError whose data is the task, which `taskAnswer` tells apart from any
 * error a server could send itself.
 */
import { Client, ProtocolError, ProtocolErrorCode, type JSONRPCErrorResponse, type JSONRPCNotification, type JSONRPCResponse, type MessageExtraInfo } from '@modelcontextprotocol/client';

/** The tasks extension of MCP 2026-07-28 (SEP-2663): a tools/call may be answered with a task. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The tasks answered so far, as the data of the errors made of them. */
const taskAnswers = new WeakSet<object>();

/** The task a 2026 server answered a request with (`resultType: "task"`), or undefined for any other error. */
export function taskAnswer(e: unknown): Record<string, unknown> | undefined {
  const data = e instanceof ProtocolError ? (e.data as unknown) : undefined;
  return typeof data === 'object' && data !== null && taskAnswers.has(data) ? (data as Record<string, unknown>) : undefined;
}

export class OrderedClient extends Client {
  /** Notifications received whose handlers have not run yet. */
  private waiting = 0;

  protected override _onnotification(notification: JSONRPCNotification, extra?: MessageExtraInfo): void {
    super._onnotification(notification, extra);
    // Queued after the handler's own microtask: it runs once the handler has.
    this.waiting++;
    queueMicrotask(() => this.waiting--);
  }

  protected override _onresponse(response: JSONRPCResponse | JSONRPCErrorResponse): void {
    const r = this.asTaskAnswer(response);
    if (this.waiting === 0) super._onresponse(r);
    else queueMicrotask(() => super._onresponse(r));
  }

  /** A 2026 answer that is a task becomes an error carrying it; any other answer is left as it is. */
  private asTaskAnswer(response: JSONRPCResponse | JSONRPCErrorResponse): JSONRPCResponse | JSONRPCErrorResponse {
    const result = (response as { result?: Record<string, unknown> }).result;
    if (typeof result !== 'object' || result === null || result.resultType !== 'task' || this.getProtocolEra() !== 'modern') return response;
    const task: Record<string, unknown> = { ...result };
    delete task.resultType;
    taskAnswers.add(task);
    return { jsonrpc: '2.0', id: response.id, error: { code: ProtocolErrorCode.InternalError, message: 'the server answered with a task (resultType "task"), which this request does not take', data: task } } as JSONRPCErrorResponse;
  }
}
