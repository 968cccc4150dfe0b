-- Each store's catalog version becomes a sequence of its own, bumped after commit without a row
-- lock (see src/modules/stores/catalog-version.ts); it starts above the column it replaces.
DO $$
DECLARE s record;
BEGIN
  FOR s IN SELECT slug, catalog_version FROM stores LOOP
    EXECUTE format('CREATE SEQUENCE IF NOT EXISTS %I START WITH %s', 'catalog_version_' || s.slug, s.catalog_version + 1);
    PERFORM nextval(quote_ident('catalog_version_' || s.slug)::regclass);
  END LOOP;
END $$;--> statement-breakpoint
ALTER TABLE "stores" DROP COLUMN "catalog_version";
