CREATE TABLE "cart_holds" (
	"store" text NOT NULL,
	"cart_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"quantity" integer NOT NULL,
	"until" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "cart_holds_store_cart_id_product_id_pk" PRIMARY KEY("store","cart_id","product_id"),
	CONSTRAINT "cart_holds_quantity_check" CHECK ("cart_holds"."quantity" > 0)
);
--> statement-breakpoint
ALTER TABLE "carts" ADD COLUMN "held_until" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "cart_holds" ADD CONSTRAINT "cart_holds_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cart_holds" ADD CONSTRAINT "cart_holds_store_cart_id_carts_store_id_fk" FOREIGN KEY ("store","cart_id") REFERENCES "public"."carts"("store","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cart_holds_store_until_idx" ON "cart_holds" USING btree ("store","until");--> statement-breakpoint
CREATE INDEX "cart_holds_store_product_idx" ON "cart_holds" USING btree ("store","product_id","until");