CREATE TABLE "addresses" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"alias" text DEFAULT '' NOT NULL,
	"zipcode" text NOT NULL,
	"street" text NOT NULL,
	"state" text NOT NULL,
	"city" text NOT NULL,
	"country" text NOT NULL,
	"neightborhood" text DEFAULT '' NOT NULL,
	"number" text NOT NULL,
	"complement" text DEFAULT '' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone,
	"deleted_at" timestamp (3) with time zone,
	CONSTRAINT "addresses_store_id_pk" PRIMARY KEY("store","id")
);
--> statement-breakpoint
CREATE TABLE "cart_lines" (
	"store" text NOT NULL,
	"cart_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"quantity" integer NOT NULL,
	"position" bigint GENERATED ALWAYS AS IDENTITY (sequence name "cart_lines_position_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone,
	CONSTRAINT "cart_lines_store_cart_id_product_id_pk" PRIMARY KEY("store","cart_id","product_id"),
	CONSTRAINT "cart_lines_quantity_check" CHECK ("cart_lines"."quantity" > 0)
);
--> statement-breakpoint
CREATE TABLE "carts" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"customer_id" uuid,
	"address_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone,
	"deleted_at" timestamp (3) with time zone,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "carts_store_id_pk" PRIMARY KEY("store","id"),
	CONSTRAINT "carts_status_check" CHECK ("carts"."status" in ('PENDING', 'COMPLETED', 'EXPIRED'))
);
--> statement-breakpoint
CREATE TABLE "collection_parents" (
	"store" text NOT NULL,
	"child_id" uuid NOT NULL,
	"parent_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "collection_parents_store_child_id_parent_id_pk" PRIMARY KEY("store","child_id","parent_id"),
	CONSTRAINT "collection_parents_not_self_check" CHECK ("collection_parents"."child_id" <> "collection_parents"."parent_id")
);
--> statement-breakpoint
CREATE TABLE "collection_products" (
	"store" text NOT NULL,
	"collection_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "collection_products_store_collection_id_product_id_pk" PRIMARY KEY("store","collection_id","product_id")
);
--> statement-breakpoint
CREATE TABLE "collections" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone,
	"deleted_at" timestamp (3) with time zone,
	CONSTRAINT "collections_store_id_pk" PRIMARY KEY("store","id")
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"store" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text NOT NULL,
	"response_status" integer,
	"response_body" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_store_key_pk" PRIMARY KEY("store","key")
);
--> statement-breakpoint
CREATE TABLE "order_lines" (
	"store" text NOT NULL,
	"order_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"quantity" integer NOT NULL,
	"unit_price" integer NOT NULL,
	"line_price" bigint NOT NULL,
	"product" jsonb NOT NULL,
	CONSTRAINT "order_lines_store_order_id_product_id_pk" PRIMARY KEY("store","order_id","product_id"),
	CONSTRAINT "order_lines_quantity_check" CHECK ("order_lines"."quantity" > 0)
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"address_id" uuid NOT NULL,
	"cart_id" uuid,
	"status" text DEFAULT 'CREATED' NOT NULL,
	"price" bigint NOT NULL,
	"original_price" bigint,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone,
	"deleted_at" timestamp (3) with time zone,
	CONSTRAINT "orders_store_id_pk" PRIMARY KEY("store","id"),
	CONSTRAINT "orders_status_check" CHECK ("orders"."status" in ('CREATED', 'PAID', 'FULFILLED', 'CANCELLED'))
);
--> statement-breakpoint
CREATE TABLE "products" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"status" text DEFAULT 'DRAFT' NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"price" integer NOT NULL,
	"original_price" integer,
	"quantity" integer NOT NULL,
	"sku" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone,
	"deleted_at" timestamp (3) with time zone,
	CONSTRAINT "products_store_id_pk" PRIMARY KEY("store","id"),
	CONSTRAINT "products_status_check" CHECK ("products"."status" in ('DRAFT', 'ACTIVE')),
	CONSTRAINT "products_price_check" CHECK ("products"."price" >= 0),
	CONSTRAINT "products_original_price_check" CHECK ("products"."original_price" >= 0),
	CONSTRAINT "products_quantity_check" CHECK ("products"."quantity" >= 0)
);
--> statement-breakpoint
CREATE TABLE "stores" (
	"slug" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"catalog_version" bigint DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "tokens" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"secret_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "tokens_store_id_pk" PRIMARY KEY("store","id"),
	CONSTRAINT "tokens_kind_check" CHECK ("tokens"."kind" in ('admin', 'storefront'))
);
--> statement-breakpoint
ALTER TABLE "addresses" ADD CONSTRAINT "addresses_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cart_lines" ADD CONSTRAINT "cart_lines_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cart_lines" ADD CONSTRAINT "cart_lines_store_cart_id_carts_store_id_fk" FOREIGN KEY ("store","cart_id") REFERENCES "public"."carts"("store","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cart_lines" ADD CONSTRAINT "cart_lines_store_product_id_products_store_id_fk" FOREIGN KEY ("store","product_id") REFERENCES "public"."products"("store","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "carts" ADD CONSTRAINT "carts_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collection_parents" ADD CONSTRAINT "collection_parents_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collection_parents" ADD CONSTRAINT "collection_parents_store_child_id_collections_store_id_fk" FOREIGN KEY ("store","child_id") REFERENCES "public"."collections"("store","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collection_parents" ADD CONSTRAINT "collection_parents_store_parent_id_collections_store_id_fk" FOREIGN KEY ("store","parent_id") REFERENCES "public"."collections"("store","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collection_products" ADD CONSTRAINT "collection_products_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collection_products" ADD CONSTRAINT "collection_products_store_collection_id_collections_store_id_fk" FOREIGN KEY ("store","collection_id") REFERENCES "public"."collections"("store","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collection_products" ADD CONSTRAINT "collection_products_store_product_id_products_store_id_fk" FOREIGN KEY ("store","product_id") REFERENCES "public"."products"("store","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collections" ADD CONSTRAINT "collections_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_store_order_id_orders_store_id_fk" FOREIGN KEY ("store","order_id") REFERENCES "public"."orders"("store","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_store_product_id_products_store_id_fk" FOREIGN KEY ("store","product_id") REFERENCES "public"."products"("store","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_store_address_id_addresses_store_id_fk" FOREIGN KEY ("store","address_id") REFERENCES "public"."addresses"("store","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_store_cart_id_carts_store_id_fk" FOREIGN KEY ("store","cart_id") REFERENCES "public"."carts"("store","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "addresses_store_customer_idx" ON "addresses" USING btree ("store","customer_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "carts_store_expires_at_idx" ON "carts" USING btree ("store","expires_at");--> statement-breakpoint
CREATE INDEX "collection_parents_store_parent_idx" ON "collection_parents" USING btree ("store","parent_id");--> statement-breakpoint
CREATE INDEX "collection_products_store_product_idx" ON "collection_products" USING btree ("store","product_id");--> statement-breakpoint
CREATE UNIQUE INDEX "collections_store_slug_key" ON "collections" USING btree ("store","slug") WHERE "collections"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "collections_store_created_at_idx" ON "collections" USING btree ("store","created_at","id");--> statement-breakpoint
CREATE INDEX "idempotency_keys_store_expires_at_idx" ON "idempotency_keys" USING btree ("store","expires_at");--> statement-breakpoint
CREATE INDEX "order_lines_store_product_idx" ON "order_lines" USING btree ("store","product_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_store_cart_key" ON "orders" USING btree ("store","cart_id") WHERE "orders"."cart_id" is not null;--> statement-breakpoint
CREATE INDEX "orders_store_customer_created_idx" ON "orders" USING btree ("store","customer_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "orders_store_status_created_idx" ON "orders" USING btree ("store","status","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "orders_store_created_idx" ON "orders" USING btree ("store","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "products_store_slug_key" ON "products" USING btree ("store","slug") WHERE "products"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "products_store_created_at_idx" ON "products" USING btree ("store","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "products_store_price_idx" ON "products" USING btree ("store","price","id");--> statement-breakpoint
CREATE INDEX "products_store_name_idx" ON "products" USING btree ("store","name","id");--> statement-breakpoint
CREATE UNIQUE INDEX "tokens_store_secret_hash_key" ON "tokens" USING btree ("store","secret_hash");