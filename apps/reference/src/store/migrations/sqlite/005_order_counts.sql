-- How many orders each seller has in each environment, kept by triggers in the same transaction as the write that
-- changes it, so that an unfiltered order list reads its total from one row instead of counting the seller's orders
-- on every call (store/sql-domain.ts, orderSlice). Orders are never deleted or moved by the service; the delete and
-- update triggers keep the count right when an operator does it by hand.
CREATE TABLE order_counts (
  account_id  TEXT    NOT NULL,
  environment TEXT    NOT NULL,
  n           INTEGER NOT NULL,
  PRIMARY KEY (account_id, environment)
) WITHOUT ROWID;

INSERT INTO order_counts (account_id, environment, n)
  SELECT account_id, environment, count(*) FROM orders GROUP BY account_id, environment;

CREATE TRIGGER order_counts_insert AFTER INSERT ON orders BEGIN
  INSERT INTO order_counts (account_id, environment, n) VALUES (NEW.account_id, NEW.environment, 1)
    ON CONFLICT (account_id, environment) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER order_counts_delete AFTER DELETE ON orders BEGIN
  UPDATE order_counts SET n = n - 1 WHERE account_id = OLD.account_id AND environment = OLD.environment;
END;

CREATE TRIGGER order_counts_move AFTER UPDATE OF account_id, environment ON orders
  WHEN OLD.account_id IS NOT NEW.account_id OR OLD.environment IS NOT NEW.environment BEGIN
  UPDATE order_counts SET n = n - 1 WHERE account_id = OLD.account_id AND environment = OLD.environment;
  INSERT INTO order_counts (account_id, environment, n) VALUES (NEW.account_id, NEW.environment, 1)
    ON CONFLICT (account_id, environment) DO UPDATE SET n = n + 1;
END;
