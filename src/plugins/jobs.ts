/**
 * Periodic maintenance (cart expiry, idempotency key purge): each job runs on an interval that does
 * not keep the process alive, never overlaps itself, logs its failures, and stops when the app closes.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface Job {
  name: string;
  intervalSeconds: number;
  run: () => Promise<unknown>;
}

export default fp(
  async (app: FastifyInstance, options: { jobs: Job[] }) => {
    const timers: NodeJS.Timeout[] = [];
    for (const job of options.jobs) {
      if (job.intervalSeconds <= 0) continue;
      let running = false;
      const timer = setInterval(() => {
        if (running) return;
        running = true;
        job
          .run()
          .then((result) => app.log.debug({ job: job.name, result }, 'job done'))
          .catch((error: unknown) => app.log.warn({ job: job.name, err: error }, 'job failed; it runs again at its next interval'))
          .finally(() => {
            running = false;
          });
      }, job.intervalSeconds * 1000);
      timer.unref();
      timers.push(timer);
    }
    app.addHook('onClose', async () => {
      for (const timer of timers) clearInterval(timer);
    });
  },
  { name: 'jobs' },
);
