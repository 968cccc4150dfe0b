ALTER TABLE "idempotency_keys" ALTER COLUMN "state" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ALTER COLUMN "lease_until" DROP NOT NULL;