ALTER TABLE "store_versions" ADD COLUMN "last_order_number" integer DEFAULT 1000 NOT NULL;--> statement-breakpoint
-- Each store's order numbers move from its sequence to its row, after the last number given (or,
-- for a sequence never used, before its first), and never below a number an order already has;
-- then the sequences go.
DO $$
DECLARE s record; given bigint; called boolean;
BEGIN
  FOR s IN SELECT slug FROM stores LOOP
    IF to_regclass(quote_ident('order_number_' || s.slug)) IS NOT NULL THEN
      EXECUTE format('SELECT last_value, is_called FROM %I', 'order_number_' || s.slug) INTO given, called;
      UPDATE store_versions SET last_order_number = greatest(
        CASE WHEN called THEN given ELSE given - 1 END,
        (SELECT coalesce(max(o.number), 1000) FROM orders o WHERE o.store = s.slug))
      WHERE store = s.slug;
      EXECUTE format('DROP SEQUENCE %I', 'order_number_' || s.slug);
    END IF;
  END LOOP;
END $$;
