CREATE TABLE "customer_auth" (
	"store" text PRIMARY KEY NOT NULL,
	"issuer" text NOT NULL,
	"audience" text NOT NULL,
	"jwks_url" text,
	"jwks" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone,
	CONSTRAINT "customer_auth_one_key_source_check" CHECK (("customer_auth"."jwks_url" is null) <> ("customer_auth"."jwks" is null))
);
--> statement-breakpoint
ALTER TABLE "tokens" DROP CONSTRAINT "tokens_kind_check";--> statement-breakpoint
-- Keys kept before callers had key spaces of their own belong to no caller of today: they age out.
ALTER TABLE "idempotency_keys" ADD COLUMN "caller" text NOT NULL DEFAULT '';--> statement-breakpoint
ALTER TABLE "idempotency_keys" ALTER COLUMN "caller" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_store_key_pk";--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_store_caller_key_pk" PRIMARY KEY("store","caller","key");--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "customer_id" uuid;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "customer_auth" ADD CONSTRAINT "customer_auth_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "customer_auth_issuer_audience_key" ON "customer_auth" USING btree ("issuer","audience");--> statement-breakpoint
CREATE INDEX "tokens_store_customer_idx" ON "tokens" USING btree ("store","customer_id") WHERE "tokens"."customer_id" is not null;--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_customer_check" CHECK (("tokens"."kind" = 'customer') = ("tokens"."customer_id" is not null));--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_kind_check" CHECK ("tokens"."kind" in ('admin', 'server', 'storefront', 'customer'));