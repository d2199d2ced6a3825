-- Contract 3.1: test and live are separate data (spec/DECISIONS.md G20, G21).
--
-- Every domain row now belongs to one account AND one environment ('test' or 'live'), and a code the seller
-- chooses is unique per account and environment (a test product SKU-1 and a live product SKU-1 are two products).
-- Rows written before 3.1 carry no environment; they all go to 'test': the reference server is a sandbox, and
-- 3.0 printed and documented test keys first, so that is where earlier data was meant to be seen.
--
-- SQLite cannot change a table's UNIQUE or FOREIGN KEY constraints, so each domain table is rebuilt: the new
-- tables are created beside the old ones (referencing each other), filled, the old ones dropped children first,
-- and the new ones renamed into place (a rename updates the foreign keys that name the table). Row ids are kept,
-- so list orders (by id) do not change. Numbers the service assigns (order_no, draft_id, return_no, invoice_no,
-- deposit_id, video_id) stay unique across the whole service, environments included.

-- Client credentials are issued for one environment, like API keys (G21).
ALTER TABLE client_credentials ADD COLUMN environment TEXT NOT NULL DEFAULT 'test' CHECK (environment IN ('test', 'live'));

CREATE TABLE suppliers_new (
  id            INTEGER PRIMARY KEY,
  account_id    TEXT    NOT NULL,
  environment   TEXT    NOT NULL CHECK (environment IN ('test', 'live')),
  supplier_code TEXT    NOT NULL,
  supplier_name TEXT    NOT NULL,
  updated_at    INTEGER NOT NULL,
  UNIQUE (account_id, environment, supplier_code)
);
INSERT INTO suppliers_new (id, account_id, environment, supplier_code, supplier_name, updated_at)
  SELECT id, account_id, 'test', supplier_code, supplier_name, updated_at FROM suppliers;

CREATE TABLE products_new (
  id            INTEGER PRIMARY KEY,
  account_id    TEXT    NOT NULL,
  environment   TEXT    NOT NULL CHECK (environment IN ('test', 'live')),
  product_code  TEXT    NOT NULL,
  product_name  TEXT    NOT NULL,
  price         INTEGER NOT NULL CHECK (price >= 0),
  supplier_code TEXT,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  UNIQUE (account_id, environment, product_code)
);
INSERT INTO products_new (id, account_id, environment, product_code, product_name, price, supplier_code, created_at, updated_at)
  SELECT id, account_id, 'test', product_code, product_name, price, supplier_code, created_at, updated_at FROM products;

CREATE TABLE product_options_new (
  id               INTEGER PRIMARY KEY,
  account_id       TEXT    NOT NULL,
  environment      TEXT    NOT NULL CHECK (environment IN ('test', 'live')),
  product_code     TEXT    NOT NULL,
  option_code      TEXT    NOT NULL,
  option_name      TEXT    NOT NULL,
  additional_price INTEGER NOT NULL CHECK (additional_price >= 0),
  created_at       INTEGER NOT NULL,
  UNIQUE (account_id, environment, product_code, option_code),
  FOREIGN KEY (account_id, environment, product_code) REFERENCES products_new (account_id, environment, product_code)
);
INSERT INTO product_options_new (id, account_id, environment, product_code, option_code, option_name, additional_price, created_at)
  SELECT id, account_id, 'test', product_code, option_code, option_name, additional_price, created_at FROM product_options;

-- One row for the product itself (option_code NULL) and one per option: what is free to allocate.
CREATE TABLE stock_new (
  id           INTEGER PRIMARY KEY,
  account_id   TEXT    NOT NULL,
  environment  TEXT    NOT NULL CHECK (environment IN ('test', 'live')),
  product_code TEXT    NOT NULL,
  option_code  TEXT,
  quantity     INTEGER NOT NULL CHECK (quantity >= 0),
  updated_at   INTEGER NOT NULL,
  FOREIGN KEY (account_id, environment, product_code) REFERENCES products_new (account_id, environment, product_code),
  FOREIGN KEY (account_id, environment, product_code, option_code)
    REFERENCES product_options_new (account_id, environment, product_code, option_code)
);
INSERT INTO stock_new (id, account_id, environment, product_code, option_code, quantity, updated_at)
  SELECT id, account_id, 'test', product_code, option_code, quantity, updated_at FROM stock;

CREATE TABLE orders_new (
  id                INTEGER PRIMARY KEY,
  account_id        TEXT    NOT NULL,
  environment       TEXT    NOT NULL CHECK (environment IN ('test', 'live')),
  order_no          TEXT    NOT NULL UNIQUE,
  mall_order_no     TEXT    NOT NULL,
  mall_product_name TEXT    NOT NULL,
  product_code      TEXT    NOT NULL,
  option_code       TEXT,
  quantity          INTEGER NOT NULL CHECK (quantity > 0),
  receiver_name     TEXT    NOT NULL,
  receiver_phone    TEXT    NOT NULL,
  receiver_address  TEXT    NOT NULL,
  memo              TEXT    NOT NULL DEFAULT '',
  order_status_code INTEGER NOT NULL,
  invoice_no        TEXT    UNIQUE,
  registered_at     INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  UNIQUE (account_id, environment, mall_order_no),
  FOREIGN KEY (account_id, environment, product_code) REFERENCES products_new (account_id, environment, product_code),
  FOREIGN KEY (account_id, environment, product_code, option_code)
    REFERENCES product_options_new (account_id, environment, product_code, option_code)
);
INSERT INTO orders_new (id, account_id, environment, order_no, mall_order_no, mall_product_name, product_code, option_code, quantity,
                        receiver_name, receiver_phone, receiver_address, memo, order_status_code, invoice_no, registered_at, updated_at)
  SELECT id, account_id, 'test', order_no, mall_order_no, mall_product_name, product_code, option_code, quantity,
         receiver_name, receiver_phone, receiver_address, memo, order_status_code, invoice_no, registered_at, updated_at FROM orders;

CREATE TABLE draft_orders_new (
  id                INTEGER PRIMARY KEY,
  account_id        TEXT    NOT NULL,
  environment       TEXT    NOT NULL CHECK (environment IN ('test', 'live')),
  draft_id          TEXT    NOT NULL UNIQUE,
  status            TEXT    NOT NULL,
  mall_order_no     TEXT    NOT NULL,
  mall_product_name TEXT    NOT NULL,
  product_code      TEXT    NOT NULL,
  option_code       TEXT,
  quantity          INTEGER NOT NULL CHECK (quantity > 0),
  receiver_name     TEXT    NOT NULL,
  receiver_phone    TEXT    NOT NULL,
  receiver_address  TEXT    NOT NULL,
  memo              TEXT    NOT NULL DEFAULT '',
  created_at        INTEGER NOT NULL,
  UNIQUE (account_id, environment, mall_order_no),
  FOREIGN KEY (account_id, environment, product_code) REFERENCES products_new (account_id, environment, product_code),
  FOREIGN KEY (account_id, environment, product_code, option_code)
    REFERENCES product_options_new (account_id, environment, product_code, option_code)
);
INSERT INTO draft_orders_new (id, account_id, environment, draft_id, status, mall_order_no, mall_product_name, product_code, option_code,
                              quantity, receiver_name, receiver_phone, receiver_address, memo, created_at)
  SELECT id, account_id, 'test', draft_id, status, mall_order_no, mall_product_name, product_code, option_code,
         quantity, receiver_name, receiver_phone, receiver_address, memo, created_at FROM draft_orders;

CREATE TABLE returns_new (
  id                INTEGER PRIMARY KEY,
  account_id        TEXT    NOT NULL,
  environment       TEXT    NOT NULL CHECK (environment IN ('test', 'live')),
  return_no         TEXT    NOT NULL UNIQUE,
  order_no          TEXT    NOT NULL REFERENCES orders_new (order_no),
  reason            TEXT    NOT NULL,
  registered_at     INTEGER NOT NULL,
  cancellable_until INTEGER NOT NULL,
  withdrawn_at      INTEGER            -- NULL while the return is requested; set when it is withdrawn
);
-- The window of a return registered at or after the deadline's time of day ended, under 3.0, on its own
-- registration day; under 3.1 it ends at the same time the next day (G13). The default service time zone
-- (Asia/Seoul) has no daylight-saving change, so "the next day" is 86,400 seconds later (in a zone that has one,
-- such a return registered on the eve of a change gets a deadline one hour off its wall-clock 18:00).
INSERT INTO returns_new (id, account_id, environment, return_no, order_no, reason, registered_at, cancellable_until, withdrawn_at)
  SELECT id, account_id, 'test', return_no, order_no, reason, registered_at,
         CASE WHEN cancellable_until <= registered_at THEN cancellable_until + 86400 ELSE cancellable_until END,
         withdrawn_at
  FROM returns;

CREATE TABLE deposits_new (
  id             INTEGER PRIMARY KEY,
  account_id     TEXT    NOT NULL,
  environment    TEXT    NOT NULL CHECK (environment IN ('test', 'live')),
  deposit_id     TEXT    NOT NULL UNIQUE,
  amount         INTEGER NOT NULL CHECK (amount > 0),
  depositor_name TEXT    NOT NULL,
  deposited_at   INTEGER NOT NULL
);
INSERT INTO deposits_new (id, account_id, environment, deposit_id, amount, depositor_name, deposited_at)
  SELECT id, account_id, 'test', deposit_id, amount, depositor_name, deposited_at FROM deposits;

CREATE TABLE videos_new (
  id               INTEGER PRIMARY KEY,
  account_id       TEXT    NOT NULL,
  environment      TEXT    NOT NULL CHECK (environment IN ('test', 'live')),
  video_id         TEXT    NOT NULL UNIQUE,
  invoice_no       TEXT    NOT NULL,
  recorded_at      INTEGER NOT NULL,
  duration_seconds INTEGER NOT NULL CHECK (duration_seconds > 0)
);
INSERT INTO videos_new (id, account_id, environment, video_id, invoice_no, recorded_at, duration_seconds)
  SELECT id, account_id, 'test', video_id, invoice_no, recorded_at, duration_seconds FROM videos;

-- Children before parents, so no drop leaves a dangling reference.
DROP TABLE returns;
DROP TABLE stock;
DROP TABLE draft_orders;
DROP TABLE orders;
DROP TABLE product_options;
DROP TABLE products;
DROP TABLE suppliers;
DROP TABLE deposits;
DROP TABLE videos;

ALTER TABLE suppliers_new RENAME TO suppliers;
ALTER TABLE products_new RENAME TO products;
ALTER TABLE product_options_new RENAME TO product_options;
ALTER TABLE stock_new RENAME TO stock;
ALTER TABLE orders_new RENAME TO orders;
ALTER TABLE draft_orders_new RENAME TO draft_orders;
ALTER TABLE returns_new RENAME TO returns;
ALTER TABLE deposits_new RENAME TO deposits;
ALTER TABLE videos_new RENAME TO videos;

CREATE INDEX products_by_update ON products (account_id, environment, updated_at);
CREATE UNIQUE INDEX stock_key ON stock (account_id, environment, product_code, ifnull(option_code, ''));
CREATE INDEX stock_by_update ON stock (account_id, environment, updated_at);
CREATE INDEX orders_newest_first ON orders (account_id, environment, registered_at DESC, id DESC);
CREATE INDEX orders_by_update ON orders (account_id, environment, updated_at);
-- At most one return of an order that is not withdrawn.
CREATE UNIQUE INDEX returns_one_open_per_order ON returns (order_no) WHERE withdrawn_at IS NULL;
CREATE INDEX deposits_by_time ON deposits (account_id, environment, deposited_at DESC, id DESC);
CREATE INDEX videos_by_invoice ON videos (account_id, environment, invoice_no, recorded_at, id);
