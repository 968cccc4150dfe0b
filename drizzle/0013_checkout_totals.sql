CREATE TABLE "shipping_options" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"price" bigint NOT NULL,
	"countries" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"free_above" bigint,
	"min_subtotal" bigint DEFAULT 0 NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone,
	"deleted_at" timestamp (3) with time zone,
	CONSTRAINT "shipping_options_store_id_pk" PRIMARY KEY("store","id")
);
--> statement-breakpoint
CREATE TABLE "tax_rates" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"country" text NOT NULL,
	"region" text,
	"category" text,
	"rate" integer NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone,
	CONSTRAINT "tax_rates_store_id_pk" PRIMARY KEY("store","id"),
	CONSTRAINT "tax_rates_rate_check" CHECK ("tax_rates"."rate" between 0 and 10000)
);
--> statement-breakpoint
ALTER TABLE "addresses" ADD COLUMN "name" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "addresses" ADD COLUMN "phone" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "carts" ADD COLUMN "shipping_option_id" uuid;--> statement-breakpoint
ALTER TABLE "carts" ADD COLUMN "shipping_country" text;--> statement-breakpoint
ALTER TABLE "carts" ADD COLUMN "shipping_region" text;--> statement-breakpoint
-- Orders placed before numbers existed are numbered from 1001 per store in creation order, and each
-- store's number sequence (src/modules/stores/order-numbers.ts) starts after them.
ALTER TABLE "orders" ADD COLUMN "number" integer;--> statement-breakpoint
UPDATE "orders" o SET "number" = n.number FROM (
  SELECT store, id, 1000 + row_number() OVER (PARTITION BY store ORDER BY created_at, id) AS number FROM "orders"
) n WHERE o.store = n.store AND o.id = n.id;--> statement-breakpoint
ALTER TABLE "orders" ALTER COLUMN "number" SET NOT NULL;--> statement-breakpoint
DO $$
DECLARE s record;
BEGIN
  FOR s IN SELECT st.slug, (SELECT count(*) FROM orders o WHERE o.store = st.slug) AS placed FROM stores st LOOP
    EXECUTE format('CREATE SEQUENCE IF NOT EXISTS %I START WITH %s', 'order_number_' || s.slug, 1001 + s.placed);
  END LOOP;
END $$;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "email" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "currency" text DEFAULT 'USD' NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "prices_include_tax" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "shipping" jsonb;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "shipping_total" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "tax_lines" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "tax_total" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "tax_category" text;--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "currency" text DEFAULT 'USD' NOT NULL;--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "prices_include_tax" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "unpaid_order_timeout_seconds" integer DEFAULT 86400;--> statement-breakpoint
ALTER TABLE "shipping_options" ADD CONSTRAINT "shipping_options_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tax_rates" ADD CONSTRAINT "tax_rates_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "shipping_options_store_created_idx" ON "shipping_options" USING btree ("store","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "tax_rates_store_place_key" ON "tax_rates" USING btree ("store","country",lower(coalesce("region", '')),coalesce("category", ''));--> statement-breakpoint
CREATE UNIQUE INDEX "orders_store_number_key" ON "orders" USING btree ("store","number");--> statement-breakpoint
CREATE INDEX "orders_store_email_idx" ON "orders" USING btree ("store",lower("email")) WHERE "orders"."email" is not null;