CREATE TABLE "discounts" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"code" text NOT NULL,
	"type" text NOT NULL,
	"value" integer NOT NULL,
	"min_subtotal" bigint DEFAULT 0 NOT NULL,
	"starts_at" timestamp (3) with time zone,
	"ends_at" timestamp (3) with time zone,
	"usage_limit" integer,
	"usage_count" integer DEFAULT 0 NOT NULL,
	"once_per_customer" boolean DEFAULT false NOT NULL,
	"products" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"collections" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone,
	"deleted_at" timestamp (3) with time zone,
	CONSTRAINT "discounts_store_id_pk" PRIMARY KEY("store","id"),
	CONSTRAINT "discounts_type_check" CHECK ("discounts"."type" in ('percentage', 'fixed')),
	CONSTRAINT "discounts_usage_check" CHECK ("discounts"."usage_count" >= 0)
);
--> statement-breakpoint
ALTER TABLE "carts" ADD COLUMN "discount_id" uuid;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "discount_id" uuid;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "discount" jsonb;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "discount_total" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "discounts" ADD CONSTRAINT "discounts_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "discounts_store_code_key" ON "discounts" USING btree ("store","code") WHERE "discounts"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "discounts_store_created_at_idx" ON "discounts" USING btree ("store","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "orders_store_discount_customer_idx" ON "orders" USING btree ("store","discount_id","customer_id") WHERE "orders"."discount_id" is not null;