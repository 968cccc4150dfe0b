CREATE TABLE "catalog_hold_marks" (
	"store" text NOT NULL,
	"product_id" uuid NOT NULL,
	"xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL,
	CONSTRAINT "catalog_hold_marks_store_product_id_pk" PRIMARY KEY("store","product_id")
);
--> statement-breakpoint
ALTER TABLE "catalog_hold_marks" ADD CONSTRAINT "catalog_hold_marks_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "catalog_hold_marks_store_xid_idx" ON "catalog_hold_marks" USING btree ("store","xid");--> statement-breakpoint
-- Each store's holds version, a sequence beside its catalog version (src/modules/stores/catalog-version.ts).
DO $$
DECLARE s record;
BEGIN
  FOR s IN SELECT slug FROM stores LOOP
    EXECUTE format('CREATE SEQUENCE IF NOT EXISTS %I', 'catalog_holds_' || s.slug);
  END LOOP;
END $$;
