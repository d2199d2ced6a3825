-- Domain data of the sellers: products, options, stock, orders, drafts, returns, suppliers, deposits, videos.
-- Every row belongs to one seller account (account_id); codes the seller chooses are unique per account, numbers
-- the service assigns (order_no, draft_id, return_no, invoice_no, ...) are unique across the service.
-- Times are Unix epoch seconds; the API shows them in the service time zone.

CREATE TABLE domain_sequences (
  name  TEXT    NOT NULL,
  scope TEXT    NOT NULL,
  value INTEGER NOT NULL,
  PRIMARY KEY (name, scope)
) WITHOUT ROWID;

CREATE TABLE suppliers (
  id            INTEGER PRIMARY KEY,
  account_id    TEXT    NOT NULL,
  supplier_code TEXT    NOT NULL,
  supplier_name TEXT    NOT NULL,
  updated_at    INTEGER NOT NULL,
  UNIQUE (account_id, supplier_code)
);

CREATE TABLE products (
  id            INTEGER PRIMARY KEY,
  account_id    TEXT    NOT NULL,
  product_code  TEXT    NOT NULL,
  product_name  TEXT    NOT NULL,
  price         INTEGER NOT NULL CHECK (price >= 0),
  supplier_code TEXT,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  UNIQUE (account_id, product_code)
);
CREATE INDEX products_by_update ON products (account_id, updated_at);

CREATE TABLE product_options (
  id               INTEGER PRIMARY KEY,
  account_id       TEXT    NOT NULL,
  product_code     TEXT    NOT NULL,
  option_code      TEXT    NOT NULL,
  option_name      TEXT    NOT NULL,
  additional_price INTEGER NOT NULL CHECK (additional_price >= 0),
  created_at       INTEGER NOT NULL,
  UNIQUE (account_id, product_code, option_code),
  FOREIGN KEY (account_id, product_code) REFERENCES products (account_id, product_code)
);

-- One row for the product itself (option_code NULL) and one per option: what is free to allocate.
CREATE TABLE stock (
  id           INTEGER PRIMARY KEY,
  account_id   TEXT    NOT NULL,
  product_code TEXT    NOT NULL,
  option_code  TEXT,
  quantity     INTEGER NOT NULL CHECK (quantity >= 0),
  updated_at   INTEGER NOT NULL,
  FOREIGN KEY (account_id, product_code) REFERENCES products (account_id, product_code),
  FOREIGN KEY (account_id, product_code, option_code) REFERENCES product_options (account_id, product_code, option_code)
);
CREATE UNIQUE INDEX stock_key ON stock (account_id, product_code, ifnull(option_code, ''));
CREATE INDEX stock_by_update ON stock (account_id, updated_at);

CREATE TABLE orders (
  id                INTEGER PRIMARY KEY,
  account_id        TEXT    NOT NULL,
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
  UNIQUE (account_id, mall_order_no),
  FOREIGN KEY (account_id, product_code) REFERENCES products (account_id, product_code),
  FOREIGN KEY (account_id, product_code, option_code) REFERENCES product_options (account_id, product_code, option_code)
);
CREATE INDEX orders_newest_first ON orders (account_id, registered_at DESC, id DESC);
CREATE INDEX orders_by_update ON orders (account_id, updated_at);

CREATE TABLE draft_orders (
  id                INTEGER PRIMARY KEY,
  account_id        TEXT    NOT NULL,
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
  UNIQUE (account_id, mall_order_no),
  FOREIGN KEY (account_id, product_code) REFERENCES products (account_id, product_code),
  FOREIGN KEY (account_id, product_code, option_code) REFERENCES product_options (account_id, product_code, option_code)
);

CREATE TABLE returns (
  id                INTEGER PRIMARY KEY,
  account_id        TEXT    NOT NULL,
  return_no         TEXT    NOT NULL UNIQUE,
  order_no          TEXT    NOT NULL REFERENCES orders (order_no),
  reason            TEXT    NOT NULL,
  registered_at     INTEGER NOT NULL,
  cancellable_until INTEGER NOT NULL,
  withdrawn_at      INTEGER            -- NULL while the return is requested; set when it is withdrawn
);
-- At most one return of an order that is not withdrawn.
CREATE UNIQUE INDEX returns_one_open_per_order ON returns (order_no) WHERE withdrawn_at IS NULL;

CREATE TABLE deposits (
  id             INTEGER PRIMARY KEY,
  account_id     TEXT    NOT NULL,
  deposit_id     TEXT    NOT NULL UNIQUE,
  amount         INTEGER NOT NULL CHECK (amount > 0),
  depositor_name TEXT    NOT NULL,
  deposited_at   INTEGER NOT NULL
);
CREATE INDEX deposits_by_time ON deposits (account_id, deposited_at DESC, id DESC);

CREATE TABLE videos (
  id               INTEGER PRIMARY KEY,
  account_id       TEXT    NOT NULL,
  video_id         TEXT    NOT NULL UNIQUE,
  invoice_no       TEXT    NOT NULL,
  recorded_at      INTEGER NOT NULL,
  duration_seconds INTEGER NOT NULL CHECK (duration_seconds > 0)
);
CREATE INDEX videos_by_invoice ON videos (account_id, invoice_no, recorded_at, id);
