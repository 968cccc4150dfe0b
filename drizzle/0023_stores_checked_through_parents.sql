-- These rows reach their store's row through another foreign key of (store, ...): an order through
-- its address, its lines through it, a cart's lines and holds through the cart. Their own check of
-- the store added nothing but a check per row written (src/db/schema.ts, storeOfParent).
ALTER TABLE "cart_holds" DROP CONSTRAINT "cart_holds_store_stores_slug_fk";
--> statement-breakpoint
ALTER TABLE "cart_lines" DROP CONSTRAINT "cart_lines_store_stores_slug_fk";
--> statement-breakpoint
ALTER TABLE "order_lines" DROP CONSTRAINT "order_lines_store_stores_slug_fk";
--> statement-breakpoint
ALTER TABLE "orders" DROP CONSTRAINT "orders_store_stores_slug_fk";
