CREATE TABLE "fulfillments" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"order_id" uuid NOT NULL,
	"lines" jsonb NOT NULL,
	"tracking_number" text,
	"tracking_url" text,
	"carrier" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fulfillments_store_id_pk" PRIMARY KEY("store","id")
);
--> statement-breakpoint
CREATE TABLE "refunds" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"order_id" uuid NOT NULL,
	"amount" bigint NOT NULL,
	"reason" text,
	"lines" jsonb NOT NULL,
	"restock" boolean DEFAULT false NOT NULL,
	"parts" jsonb NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "refunds_store_id_pk" PRIMARY KEY("store","id"),
	CONSTRAINT "refunds_amount_check" CHECK ("refunds"."amount" > 0)
);
--> statement-breakpoint
ALTER TABLE "fulfillments" ADD CONSTRAINT "fulfillments_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fulfillments" ADD CONSTRAINT "fulfillments_store_order_id_orders_store_id_fk" FOREIGN KEY ("store","order_id") REFERENCES "public"."orders"("store","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_store_order_id_orders_store_id_fk" FOREIGN KEY ("store","order_id") REFERENCES "public"."orders"("store","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "fulfillments_store_order_idx" ON "fulfillments" USING btree ("store","order_id");--> statement-breakpoint
CREATE INDEX "refunds_store_order_idx" ON "refunds" USING btree ("store","order_id");--> statement-breakpoint
CREATE INDEX "refunds_pending_idx" ON "refunds" USING btree ("store","created_at") WHERE "refunds"."status" = 'pending';