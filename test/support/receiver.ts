/**
 * A real webhook receiver for tests: a node:http server on 127.0.0.1 that keeps every request
 * and answers as the test says (a status, a delay, or nothing at all).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { after } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Answer {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
}

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** Decides each answer (by default 204); receives the request and how many came before it. */
  answer: (request: ReceivedRequest, index: number) => Answer;
  close(): Promise<void>;
  /** Waits until `predicate` holds over what was received, or fails after `timeoutMs`. */
  waitFor(predicate: (received: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    answer: () => ({ status: 204 }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async waitFor(predicate, timeoutMs = 15000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(receiver.received)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${timeoutMs} ms (${receiver.received.length} received)`);
        await sleep(20);
      }
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString(), at: Date.now() };
      const answer = receiver.answer(request, receiver.received.length);
      receiver.received.push(request);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers);
        res.end();
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  receiver.port = typeof address === 'object' && address ? address.port : 0;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  after(() => receiver.close());
  return receiver;
}
