import { createConnection, createServer, type Server } from 'node:net';

/**
 * A TCP relay to a PostgreSQL server that counts round trips on the wire, per connection: the frontend
 * messages that end one (a simple `Query`, or the `Sync` of the extended protocol). A simple query
 * whose text starts with `begin` opens a transaction on that connection and one starting with `commit`
 * or `rollback` closes it (the only text read); `transactions` receives each closed transaction's round
 * trips, BEGIN and COMMIT included, and `outside` counts the round trips outside any transaction.
 */
export interface PgRelay {
  port: number;
  transactions: number[];
  outside(): number;
  close(): Promise<void>;
}

export async function startPgRelay(target: { host: string; port: number }): Promise<PgRelay> {
  const transactions: number[] = [];
  let outside = 0;
  const server: Server = createServer((client) => {
    const upstream = createConnection(target);
    let buffer = Buffer.alloc(0);
    let started = false; // the startup message (and an SSL request before it) has no type byte
    let open: number | null = null;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          if (buffer.length < 8) break;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) break;
          const code = buffer.readInt32BE(4);
          buffer = buffer.subarray(length);
          if (code !== 80877103 && code !== 80877104) started = true;
          continue;
        }
        if (buffer.length < 5) break;
        const length = buffer.readInt32BE(1);
        if (buffer.length < length + 1) break;
        const type = String.fromCharCode(buffer[0]!);
        if (type === 'Q' || type === 'S') {
          const text = type === 'Q' ? buffer.toString('utf8', 5, length).trim().toLowerCase() : '';
          if (text.startsWith('begin')) open = 0;
          if (open === null) outside++;
          else open++;
          if (open !== null && (text.startsWith('commit') || text.startsWith('rollback'))) {
            transactions.push(open);
            open = null;
          }
        }
        buffer = buffer.subarray(length + 1);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    transactions,
    outside: () => outside,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
