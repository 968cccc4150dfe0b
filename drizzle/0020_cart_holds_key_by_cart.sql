-- The key leads with the cart, so that a read of a store's holds of some products has one index
-- that fits it, (store, product_id, until): led by the store, the key fitted it too, checking
-- product_id on every hold of the store, and the planner took it for a busy store once renewals had
-- grown the other index.
ALTER TABLE "cart_holds" DROP CONSTRAINT "cart_holds_store_cart_id_product_id_pk";--> statement-breakpoint
ALTER TABLE "cart_holds" ADD CONSTRAINT "cart_holds_cart_id_product_id_store_pk" PRIMARY KEY("cart_id","product_id","store");
