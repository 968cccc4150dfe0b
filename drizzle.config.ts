import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/db/schema.ts', './src/db/events-schema.ts', './src/db/dashboard-schema.ts'],
  out: './drizzle',
});
