-- How many orders each seller has in each environment, kept by a trigger in the same transaction as the write that
-- changes it, so that an unfiltered order list reads its total from one row instead of counting the seller's orders
-- on every call (store/sql-domain.ts, orderSlice). The upsert locks the seller's row until the writing transaction
-- ends, so concurrent registrations on several instances each add exactly one; a registration takes that lock only
-- after the day's order-number row (domain_sequences), which every registration locks first, so it adds no wait
-- and no deadlock. Orders are never deleted or moved by the service; the trigger keeps the count right when an
-- operator does it by hand.
CREATE TABLE order_counts (
  account_id  TEXT   NOT NULL,
  environment TEXT   NOT NULL,
  n           BIGINT NOT NULL,
  PRIMARY KEY (account_id, environment)
);

-- Orders written meanwhile by a running instance wait for this migration's lock, then count themselves.
LOCK TABLE orders IN SHARE MODE;

INSERT INTO order_counts (account_id, environment, n)
  SELECT account_id, environment, count(*) FROM orders GROUP BY account_id, environment;

CREATE FUNCTION order_counts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE order_counts SET n = n - 1 WHERE account_id = OLD.account_id AND environment = OLD.environment;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO order_counts (account_id, environment, n) VALUES (NEW.account_id, NEW.environment, 1)
      ON CONFLICT (account_id, environment) DO UPDATE SET n = order_counts.n + 1;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER order_counts_insert_delete AFTER INSERT OR DELETE ON orders
  FOR EACH ROW EXECUTE FUNCTION order_counts_keep();

CREATE TRIGGER order_counts_move AFTER UPDATE OF account_id, environment ON orders
  FOR EACH ROW
  WHEN (OLD.account_id IS DISTINCT FROM NEW.account_id OR OLD.environment IS DISTINCT FROM NEW.environment)
  EXECUTE FUNCTION order_counts_keep();
