-- Variants, options and images: what drizzle-kit cannot write (functions, an expression index,
-- the search column and its triggers, old order snapshots).
ALTER TABLE products ADD CONSTRAINT products_options_object_check CHECK (json_typeof(options) = 'object');
--> statement-breakpoint
ALTER TABLE products ADD CONSTRAINT products_images_array_check CHECK (jsonb_typeof(images) = 'array');
--> statement-breakpoint
-- The options as equality sees them: names and values lower-cased, keys in jsonb's own order, so
-- {"Size": "M", "Color": "Blue"} and {"color": "blue", "size": "m"} are one combination.
CREATE OR REPLACE FUNCTION storefront_options_key(options json) RETURNS jsonb
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT coalesce(jsonb_object_agg(lower(o.key), lower(o.value)), '{}'::jsonb) FROM json_each_text(options) o $$;
--> statement-breakpoint
-- One product per combination of options in a group, enforced here so that two concurrent admin
-- writes cannot both succeed (the loser is a unique violation, answered 409).
CREATE UNIQUE INDEX products_store_group_options_key ON products (store, group_slug, storefront_options_key(options))
  WHERE group_slug IS NOT NULL AND deleted_at IS NULL;
--> statement-breakpoint
-- Option values are searched as words of the name: "blue linen" finds the Blue variant of "Linen
-- shirt", ranks it as a name match, and a one-letter typo may reach them.
CREATE OR REPLACE FUNCTION storefront_option_values(options json) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(string_agg(o.value, ' '), '') FROM json_each_text(coalesce(options, '{}'::json)) o $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION storefront_search_document(name text, sku text, description text, options json) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT setweight(to_tsvector('simple'::regconfig, storefront_fold(coalesce(name, '') || ' ' || storefront_option_values(options))), 'A')
            || setweight(to_tsvector('simple'::regconfig, storefront_fold(coalesce(sku, ''))), 'B')
            || setweight(to_tsvector('simple'::regconfig, storefront_fold(regexp_replace(coalesce(description, ''), '<[^>]*>', ' ', 'g'))), 'C') $$;
--> statement-breakpoint
-- PostgreSQL 15 cannot change a generated column's expression: the column (and its index) is made again.
ALTER TABLE products DROP COLUMN search;
--> statement-breakpoint
ALTER TABLE products ADD COLUMN search tsvector GENERATED ALWAYS AS (storefront_search_document(name, sku, description, options)) STORED;
--> statement-breakpoint
CREATE INDEX products_search_idx ON products USING gin (search);
--> statement-breakpoint
DROP FUNCTION storefront_search_document(text, text, text);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION storefront_collect_new_name_words() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  INSERT INTO product_name_words (store, word)
    SELECT DISTINCT c.store, w FROM new_products c CROSS JOIN LATERAL storefront_typo_words(c.name || ' ' || storefront_option_values(c.options)) w
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
    SELECT DISTINCT NEW.store, w FROM storefront_typo_words(NEW.name || ' ' || storefront_option_values(NEW.options)) w
    ORDER BY 1, 2
    ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER products_collect_renamed_name_words ON products;
--> statement-breakpoint
-- json has no equality operator: options are compared as text (a rewrite with the same text is no change).
CREATE TRIGGER products_collect_renamed_name_words AFTER UPDATE OF name, options ON products
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.options::text IS DISTINCT FROM NEW.options::text)
  EXECUTE FUNCTION storefront_collect_renamed_name_words();
--> statement-breakpoint
-- Orders placed before variants existed: their lines show the three fields with their defaults.
UPDATE order_lines SET product = jsonb_build_object('group', null, 'options', '{}'::jsonb, 'images', '[]'::jsonb) || product
  WHERE NOT product ? 'group';
