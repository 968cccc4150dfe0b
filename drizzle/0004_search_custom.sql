-- Catalog search (decisions.md, "Search, filters and cursors"), all inside PostgreSQL so that both
-- back ends (PGlite ships these contrib extensions) run the same SQL.
CREATE EXTENSION IF NOT EXISTS unaccent;
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;
--> statement-breakpoint
-- Text as search sees it: accents and case dropped, ASCII punctuation made a word break ("LS-1" is
-- the words "ls" and "1"; without this the parser reads "-1" as a negative number). unaccent() is
-- only STABLE (its dictionary could change); naming the dictionary makes this safe to declare
-- IMMUTABLE, which a generated column and an index need.
CREATE OR REPLACE FUNCTION storefront_fold(text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT regexp_replace(lower(public.unaccent('public.unaccent'::regdictionary, $1)), '[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+', ' ', 'g') $$;
--> statement-breakpoint
-- The words of a product, weighted by where they come from: A name, B sku, C description (its
-- HTML tags removed). Relevance asks "does the name hold every word" with the A weight.
CREATE OR REPLACE FUNCTION storefront_search_document(name text, sku text, description text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT setweight(to_tsvector('simple'::regconfig, storefront_fold(coalesce(name, ''))), 'A')
            || setweight(to_tsvector('simple'::regconfig, storefront_fold(coalesce(sku, ''))), 'B')
            || setweight(to_tsvector('simple'::regconfig, storefront_fold(regexp_replace(coalesce(description, ''), '<[^>]*>', ' ', 'g'))), 'C') $$;
--> statement-breakpoint
-- Generated, so every write path (admin edits, bulk loads, stock updates) keeps it right by itself.
ALTER TABLE products ADD COLUMN search tsvector GENERATED ALWAYS AS (storefront_search_document(name, sku, description)) STORED;
--> statement-breakpoint
CREATE INDEX products_search_idx ON products USING gin (search);
--> statement-breakpoint
-- Name words that a one-letter typo may reach: letters only, 4 or more (a 5-letter word of the
-- query with one extra letter matches a 4-letter word).
CREATE OR REPLACE FUNCTION storefront_typo_words(name text) RETURNS SETOF text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT w.lexeme FROM unnest(to_tsvector('simple'::regconfig, storefront_fold(name))) w
        WHERE length(w.lexeme) >= 4 AND w.lexeme !~ '[0-9]' $$;
--> statement-breakpoint
CREATE INDEX product_name_words_trgm_idx ON product_name_words USING gin (word gin_trgm_ops);
--> statement-breakpoint
-- Words are inserted in one order (store, word) so that two concurrent writers never deadlock.
CREATE OR REPLACE FUNCTION storefront_collect_new_name_words() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  INSERT INTO product_name_words (store, word)
    SELECT DISTINCT c.store, w FROM new_products c CROSS JOIN LATERAL storefront_typo_words(c.name) w
    ORDER BY 1, 2
    ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION storefront_collect_renamed_name_words() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  INSERT INTO product_name_words (store, word)
    SELECT DISTINCT NEW.store, w FROM storefront_typo_words(NEW.name) w
    ORDER BY 1, 2
    ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- One statement-level trigger for inserts (a bulk load pays once), one row trigger for renames
-- only (stock updates on the order path never run it).
CREATE TRIGGER products_collect_new_name_words AFTER INSERT ON products
  REFERENCING NEW TABLE AS new_products FOR EACH STATEMENT EXECUTE FUNCTION storefront_collect_new_name_words();
--> statement-breakpoint
CREATE TRIGGER products_collect_renamed_name_words AFTER UPDATE OF name ON products
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION storefront_collect_renamed_name_words();
--> statement-breakpoint
INSERT INTO product_name_words (store, word)
  SELECT DISTINCT p.store, w FROM products p CROSS JOIN LATERAL storefront_typo_words(p.name) w
  ON CONFLICT DO NOTHING;
