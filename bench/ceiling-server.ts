/**
 * The read ceiling: a bare Fastify server answering, from memory, the exact bytes the service
 * answered for each read path (`node --import tsx bench/ceiling-server.ts <port> <answers.json>`).
 * Paths it does not know (e.g. other product slugs) get the answer of the first path with the same
 * route prefix, so the ceiling serves bodies of the same size. It keeps them as UTF-8 bytes, as the
 * service's catalog cache does: a string would be encoded again at every answer.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [port, file] = process.argv.slice(2);
const texts = JSON.parse(readFileSync(file!, 'utf8')) as Record<string, string>;
const answers = Object.fromEntries(Object.entries(texts).map(([path, text]) => [path, Buffer.from(text)]));
const app = Fastify({ logger: false });
const entries = Object.entries(answers);
const EMPTY = Buffer.from('{}');
app.get('/*', (request, reply) => {
  const url = request.url;
  const body = answers[url] ?? entries.find(([path]) => url.startsWith(path.replace(/[^/]+$/, '')))?.[1] ?? EMPTY;
  reply.header('content-type', 'application/json; charset=utf-8').send(body);
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
console.log('ready');
