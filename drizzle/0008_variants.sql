ALTER TABLE "products" ADD COLUMN "group_slug" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "options" json DEFAULT '{}'::json NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "images" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "products_store_group_idx" ON "products" USING btree ("store","group_slug") WHERE "products"."group_slug" is not null and "products"."deleted_at" is null;