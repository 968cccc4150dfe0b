ALTER TABLE "webhook_deliveries" ADD COLUMN "leased_until" timestamp (3) with time zone;--> statement-breakpoint
-- Room on each page for the claim's new row version, so it can be a HOT update (see events-schema.ts).
ALTER TABLE "webhook_deliveries" SET (fillfactor = 80);
