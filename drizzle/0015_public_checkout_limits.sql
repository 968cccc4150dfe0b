ALTER TABLE "carts" ADD COLUMN "hold_started_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "carts" ADD COLUMN "hold_client" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "client_address" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "max_per_order" integer;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "guest" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "carts_store_hold_client_idx" ON "carts" USING btree ("store","hold_client","held_until") WHERE "carts"."hold_client" is not null;--> statement-breakpoint
CREATE INDEX "orders_store_discount_email_idx" ON "orders" USING btree ("store","discount_id",lower("email")) WHERE "orders"."discount_id" is not null and "orders"."email" is not null;--> statement-breakpoint
CREATE INDEX "orders_store_client_unpaid_idx" ON "orders" USING btree ("store","client_address") WHERE "orders"."client_address" is not null and "orders"."status" = 'CREATED';--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_max_per_order_check" CHECK ("products"."max_per_order" >= 1);