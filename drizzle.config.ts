import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/db/schema.ts', './src/db/events-schema.ts', './src/db/staff-schema.ts'],
  out: './drizzle',
});
