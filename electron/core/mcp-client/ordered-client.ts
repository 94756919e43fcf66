/**
 * The SDK's client, with what a server sent handled in the order it was sent. The SDK hands each
 * notification to its handler a microtask later but settles an answer at once: a server that
 * reports its last progress and then answers (the two often read together) would have that report
 * dropped, its request already forgotten ("a progress notification for an unknown token"). Here an
 * answer that arrives while notifications wait for their handlers waits behind them.
 */
import { Client, type JSONRPCErrorResponse, type JSONRPCNotification, type JSONRPCResponse, type MessageExtraInfo } from '@modelcontextprotocol/client';

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
    if (this.waiting === 0) super._onresponse(response);
    else queueMicrotask(() => super._onresponse(response));
  }
}
