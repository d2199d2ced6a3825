-- Seller accounts and their credentials. Secrets (API keys, client secrets, refresh tokens) are stored only as
-- SHA-256 hashes: the clear value is shown once, when it is created. Times are Unix epoch seconds.

-- The unified seller account; `paid` is the subscription that live keys require.
CREATE TABLE accounts (
  account_id TEXT    PRIMARY KEY,
  name       TEXT    NOT NULL,
  paid       INTEGER NOT NULL DEFAULT 0 CHECK (paid IN (0, 1)),
  created_at INTEGER NOT NULL
);

-- Existing service accounts (warehouse, manager, camera) linked to the seller account. A key is issued for an
-- area only once the account has linked that area's service account.
CREATE TABLE service_accounts (
  account_id          TEXT    NOT NULL REFERENCES accounts (account_id),
  area                TEXT    NOT NULL CHECK (area IN ('wms', 'manager', 'cam')),
  service_account_ref TEXT    NOT NULL,
  linked_at           INTEGER NOT NULL,
  PRIMARY KEY (account_id, area)
);

CREATE TABLE api_keys (
  key_id     TEXT    PRIMARY KEY,
  account_id TEXT    NOT NULL REFERENCES accounts (account_id),
  area       TEXT    NOT NULL CHECK (area IN ('wms', 'manager', 'cam')),
  env        TEXT    NOT NULL CHECK (env IN ('test', 'live')),
  key_hash   TEXT    NOT NULL UNIQUE,
  -- The first characters of the key (`wms_test_Ab12`), so an operator can tell keys apart without the secret.
  key_hint   TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER,
  FOREIGN KEY (account_id, area) REFERENCES service_accounts (account_id, area)
);
CREATE INDEX api_keys_by_account ON api_keys (account_id);

-- Client credentials for POST /v3/auth/token.
CREATE TABLE client_credentials (
  client_id   TEXT    PRIMARY KEY,
  account_id  TEXT    NOT NULL REFERENCES accounts (account_id),
  secret_hash TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  revoked_at  INTEGER
);
CREATE INDEX client_credentials_by_account ON client_credentials (account_id);

-- Refresh tokens are single use. Tokens descending from one client-credentials grant share a family; presenting
-- an already used token again revokes the whole family (it was copied).
CREATE TABLE refresh_tokens (
  token_hash TEXT    PRIMARY KEY,
  family_id  TEXT    NOT NULL,
  account_id TEXT    NOT NULL REFERENCES accounts (account_id),
  client_id  TEXT    NOT NULL REFERENCES client_credentials (client_id),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at    INTEGER
);
CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);

-- Calls per account, quota month (`YYYY-MM` in the service time zone) and key environment.
CREATE TABLE usage_counters (
  account_id TEXT    NOT NULL REFERENCES accounts (account_id),
  month      TEXT    NOT NULL,
  env        TEXT    NOT NULL CHECK (env IN ('test', 'live')),
  calls      INTEGER NOT NULL CHECK (calls >= 0),
  PRIMARY KEY (account_id, month, env)
) WITHOUT ROWID;
