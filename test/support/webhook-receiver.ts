import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** One delivery as a receiver saw it: its headers, its body and whether it verified. */
export interface ReceivedDelivery {
  id: string;
  timestamp: string;
  signatures: string[];
  body: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  /** Which of the receiver's secrets verified it by the Standard Webhooks rules (the `standardwebhooks` package). */
  verifiedWith: string[];
  status: number;
  /** The path the delivery was posted to. */
  path: string;
}

/**
 * A real local HTTP receiver (http://127.0.0.1:<port>/…) that verifies every delivery with the
 * `standardwebhooks` package against its current secrets and answers with `respond`'s status
 * (default 204). Deliveries whose signature does not verify with any secret are recorded too, with
 * an empty `verifiedWith`, so a test can fail on them.
 */
export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  secrets: string[] = [];
  respond: (
    delivery: ReceivedDelivery,
    request: IncomingMessage,
  ) => number | { status: number; headers: Record<string, string> } = () => 204;
  /** How long the receiver takes before it answers. */
  delayMs = 0;
  /** Deliveries received and not answered yet. */
  inFlight = 0;
  private server: Server | null = null;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hooks`;
    return this;
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(request.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
      };
      const verifiedWith = this.secrets.filter((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      let payload: ReceivedDelivery['payload'];
      try {
        payload = JSON.parse(body) as ReceivedDelivery['payload'];
      } catch {
        payload = { type: 'unparseable', timestamp: '', data: {} };
      }
      const delivery: ReceivedDelivery = {
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signatures: headers['webhook-signature'].split(' ').filter(Boolean),
        body,
        payload,
        verifiedWith,
        status: 0,
        path: request.url ?? '',
      };
      const answer = this.respond(delivery, request);
      const { status, headers: extra } =
        typeof answer === 'number' ? { status: answer, headers: {} } : answer;
      delivery.status = status;
      this.inFlight++;
      const answer$ = () => {
        this.inFlight--;
        // The sender went away before the answer (killed): the delivery is recorded as not acknowledged.
        if (request.socket.destroyed) delivery.status = -1;
        this.received.push(delivery);
        response.writeHead(status, extra);
        response.end();
      };
      if (this.delayMs > 0) setTimeout(answer$, this.delayMs);
      else answer$();
    });
  }

  /** Waits until `predicate` holds of the deliveries received so far (polling), or fails after `ms`. */
  async waitFor(
    predicate: (received: ReceivedDelivery[]) => boolean,
    ms = 10_000,
  ): Promise<ReceivedDelivery[]> {
    const deadline = Date.now() + ms;
    while (!predicate(this.received)) {
      if (Date.now() > deadline)
        throw new Error(
          `receiver: condition not met in ${ms} ms; got ${this.received.length}: ${this.received
            .map((d) => `${d.payload.type}/${d.status}`)
            .join(', ')}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.received;
  }

  async stop(): Promise<void> {
    if (this.server) await new Promise((resolve) => this.server!.close(resolve));
  }
}
