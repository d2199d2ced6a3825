-- The reference server's schema on PostgreSQL: the same tables, columns and keys as the SQLite migrations
-- (../sqlite/001_accounts.sql, 002_domain.sql and 003_environments.sql, which is where each table is explained),
-- in their 3.1 form at once: this engine starts at contract 3.1 and has no earlier data to move.
-- Times are Unix epoch seconds (BIGINT); `paid` stays 0/1 so that the stores' SQL is the same on both engines.

CREATE TABLE accounts (
  account_id TEXT    PRIMARY KEY,
  name       TEXT    NOT NULL,
  paid       INTEGER NOT NULL DEFAULT 0 CHECK (paid IN (0, 1)),
  created_at BIGINT  NOT NULL
);

CREATE TABLE service_accounts (
  account_id          TEXT   NOT NULL REFERENCES accounts (account_id),
  area                TEXT   NOT NULL CHECK (area IN ('wms', 'manager', 'cam')),
  service_account_ref TEXT   NOT NULL,
  linked_at           BIGINT NOT NULL,
  PRIMARY KEY (account_id, area)
);

CREATE TABLE api_keys (
  key_id     TEXT   PRIMARY KEY,
  account_id TEXT   NOT NULL REFERENCES accounts (account_id),
  area       TEXT   NOT NULL CHECK (area IN ('wms', 'manager', 'cam')),
  env        TEXT   NOT NULL CHECK (env IN ('test', 'live')),
  key_hash   TEXT   NOT NULL UNIQUE,
  key_hint   TEXT   NOT NULL,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT,
  FOREIGN KEY (account_id, area) REFERENCES service_accounts (account_id, area)
);
CREATE INDEX api_keys_by_account ON api_keys (account_id);

CREATE TABLE client_credentials (
  client_id   TEXT   PRIMARY KEY,
  account_id  TEXT   NOT NULL REFERENCES accounts (account_id),
  environment TEXT   NOT NULL DEFAULT 'test' CHECK (environment IN ('test', 'live')),
  secret_hash TEXT   NOT NULL,
  created_at  BIGINT NOT NULL,
  revoked_at  BIGINT
);
CREATE INDEX client_credentials_by_account ON client_credentials (account_id);

CREATE TABLE refresh_tokens (
  token_hash TEXT   PRIMARY KEY,
  family_id  TEXT   NOT NULL,
  account_id TEXT   NOT NULL REFERENCES accounts (account_id),
  client_id  TEXT   NOT NULL REFERENCES client_credentials (client_id),
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at    BIGINT
);
CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);

CREATE TABLE usage_counters (
  account_id TEXT   NOT NULL REFERENCES accounts (account_id),
  month      TEXT   NOT NULL,
  env        TEXT   NOT NULL CHECK (env IN ('test', 'live')),
  calls      BIGINT NOT NULL CHECK (calls >= 0),
  PRIMARY KEY (account_id, month, env)
);

CREATE TABLE domain_sequences (
  name  TEXT   NOT NULL,
  scope TEXT   NOT NULL,
  value BIGINT NOT NULL,
  PRIMARY KEY (name, scope)
);

-- `id` orders lists in insertion order, as SQLite's rowid does.
CREATE TABLE suppliers (
  id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id    TEXT   NOT NULL,
  environment   TEXT   NOT NULL CHECK (environment IN ('test', 'live')),
  supplier_code TEXT   NOT NULL,
  supplier_name TEXT   NOT NULL,
  updated_at    BIGINT NOT NULL,
  UNIQUE (account_id, environment, supplier_code)
);

CREATE TABLE products (
  id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id    TEXT   NOT NULL,
  environment   TEXT   NOT NULL CHECK (environment IN ('test', 'live')),
  product_code  TEXT   NOT NULL,
  product_name  TEXT   NOT NULL,
  price         BIGINT NOT NULL CHECK (price >= 0),
  supplier_code TEXT,
  created_at    BIGINT NOT NULL,
  updated_at    BIGINT NOT NULL,
  UNIQUE (account_id, environment, product_code)
);
CREATE INDEX products_by_update ON products (account_id, environment, updated_at);

CREATE TABLE product_options (
  id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id       TEXT   NOT NULL,
  environment      TEXT   NOT NULL CHECK (environment IN ('test', 'live')),
  product_code     TEXT   NOT NULL,
  option_code      TEXT   NOT NULL,
  option_name      TEXT   NOT NULL,
  additional_price BIGINT NOT NULL CHECK (additional_price >= 0),
  created_at       BIGINT NOT NULL,
  UNIQUE (account_id, environment, product_code, option_code),
  FOREIGN KEY (account_id, environment, product_code) REFERENCES products (account_id, environment, product_code)
);

-- The CHECK is the last guard of "stock never goes negative"; allocation itself is a conditional UPDATE.
CREATE TABLE stock (
  id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id   TEXT   NOT NULL,
  environment  TEXT   NOT NULL CHECK (environment IN ('test', 'live')),
  product_code TEXT   NOT NULL,
  option_code  TEXT,
  quantity     BIGINT NOT NULL CHECK (quantity >= 0),
  updated_at   BIGINT NOT NULL,
  FOREIGN KEY (account_id, environment, product_code) REFERENCES products (account_id, environment, product_code),
  FOREIGN KEY (account_id, environment, product_code, option_code)
    REFERENCES product_options (account_id, environment, product_code, option_code)
);
CREATE UNIQUE INDEX stock_key ON stock (account_id, environment, product_code, coalesce(option_code, ''));
CREATE INDEX stock_by_update ON stock (account_id, environment, updated_at);

-- The unique (account, environment, mall_order_no) is what decides between two instances registering the same
-- order at once (store/sql-domain.ts, insertOrder).
CREATE TABLE orders (
  id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id        TEXT   NOT NULL,
  environment       TEXT   NOT NULL CHECK (environment IN ('test', 'live')),
  order_no          TEXT   NOT NULL UNIQUE,
  mall_order_no     TEXT   NOT NULL,
  mall_product_name TEXT   NOT NULL,
  product_code      TEXT   NOT NULL,
  option_code       TEXT,
  quantity          BIGINT NOT NULL CHECK (quantity > 0),
  receiver_name     TEXT   NOT NULL,
  receiver_phone    TEXT   NOT NULL,
  receiver_address  TEXT   NOT NULL,
  memo              TEXT   NOT NULL DEFAULT '',
  order_status_code INTEGER NOT NULL,
  invoice_no        TEXT   UNIQUE,
  registered_at     BIGINT NOT NULL,
  updated_at        BIGINT NOT NULL,
  UNIQUE (account_id, environment, mall_order_no),
  FOREIGN KEY (account_id, environment, product_code) REFERENCES products (account_id, environment, product_code),
  FOREIGN KEY (account_id, environment, product_code, option_code)
    REFERENCES product_options (account_id, environment, product_code, option_code)
);
CREATE INDEX orders_newest_first ON orders (account_id, environment, registered_at DESC, id DESC);
CREATE INDEX orders_by_update ON orders (account_id, environment, updated_at);

CREATE TABLE draft_orders (
  id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id        TEXT   NOT NULL,
  environment       TEXT   NOT NULL CHECK (environment IN ('test', 'live')),
  draft_id          TEXT   NOT NULL UNIQUE,
  status            TEXT   NOT NULL,
  mall_order_no     TEXT   NOT NULL,
  mall_product_name TEXT   NOT NULL,
  product_code      TEXT   NOT NULL,
  option_code       TEXT,
  quantity          BIGINT NOT NULL CHECK (quantity > 0),
  receiver_name     TEXT   NOT NULL,
  receiver_phone    TEXT   NOT NULL,
  receiver_address  TEXT   NOT NULL,
  memo              TEXT   NOT NULL DEFAULT '',
  created_at        BIGINT NOT NULL,
  UNIQUE (account_id, environment, mall_order_no),
  FOREIGN KEY (account_id, environment, product_code) REFERENCES products (account_id, environment, product_code),
  FOREIGN KEY (account_id, environment, product_code, option_code)
    REFERENCES product_options (account_id, environment, product_code, option_code)
);

CREATE TABLE returns (
  id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id        TEXT   NOT NULL,
  environment       TEXT   NOT NULL CHECK (environment IN ('test', 'live')),
  return_no         TEXT   NOT NULL UNIQUE,
  order_no          TEXT   NOT NULL REFERENCES orders (order_no),
  reason            TEXT   NOT NULL,
  registered_at     BIGINT NOT NULL,
  cancellable_until BIGINT NOT NULL,
  withdrawn_at      BIGINT
);
CREATE UNIQUE INDEX returns_one_open_per_order ON returns (order_no) WHERE withdrawn_at IS NULL;

CREATE TABLE deposits (
  id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id     TEXT   NOT NULL,
  environment    TEXT   NOT NULL CHECK (environment IN ('test', 'live')),
  deposit_id     TEXT   NOT NULL UNIQUE,
  amount         BIGINT NOT NULL CHECK (amount > 0),
  depositor_name TEXT   NOT NULL,
  deposited_at   BIGINT NOT NULL
);
CREATE INDEX deposits_by_time ON deposits (account_id, environment, deposited_at DESC, id DESC);

CREATE TABLE videos (
  id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id       TEXT   NOT NULL,
  environment      TEXT   NOT NULL CHECK (environment IN ('test', 'live')),
  video_id         TEXT   NOT NULL UNIQUE,
  invoice_no       TEXT   NOT NULL,
  recorded_at      BIGINT NOT NULL,
  duration_seconds BIGINT NOT NULL CHECK (duration_seconds > 0)
);
CREATE INDEX videos_by_invoice ON videos (account_id, environment, invoice_no, recorded_at, id);
