CREATE TABLE "store_versions" (
	"store" text PRIMARY KEY NOT NULL,
	"catalog" bigint DEFAULT 0 NOT NULL,
	"holds" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "store_versions" ADD CONSTRAINT "store_versions_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
-- A busy store bumps its row many times a second: half-empty pages keep those updates on their page.
ALTER TABLE "store_versions" SET (fillfactor = 50);--> statement-breakpoint
-- Each store's versions move from its two sequences to its row, at the values they had reached (a
-- version never goes back: cached answers are keyed by it), and the sequences go.
DO $$
DECLARE s record;
BEGIN
  FOR s IN SELECT slug FROM stores LOOP
    INSERT INTO store_versions (store, catalog, holds) VALUES (
      s.slug,
      coalesce(pg_sequence_last_value(to_regclass(quote_ident('catalog_version_' || s.slug))), 0),
      coalesce(pg_sequence_last_value(to_regclass(quote_ident('catalog_holds_' || s.slug))), 0));
    EXECUTE format('DROP SEQUENCE IF EXISTS %I', 'catalog_version_' || s.slug);
    EXECUTE format('DROP SEQUENCE IF EXISTS %I', 'catalog_holds_' || s.slug);
  END LOOP;
END $$;
